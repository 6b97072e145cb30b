/**
 * The one AbortError of the engine: a run that was stopped (by the person, `/stop`, a newer message, closing the
 * app), a sleep or compaction cut short. Classified as "aborted" by name (E8), like fetch's and the SDKs' own.
 */
export function abortError(message = 'The operation was aborted.'): Error {
  return Object.assign(new Error(message), { name: 'AbortError' });
}
