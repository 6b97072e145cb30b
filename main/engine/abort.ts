/**
 * The one AbortError: a run that was stopped (by the person, `/stop`, a newer message, closing the app), a sleep,
 * a provider request or a compaction cut short. Classified as "aborted" by name (E8), like fetch's and the SDKs'
 * own; `cause` carries the signal's reason where there is one.
 */
export class AbortError extends Error {
  override readonly name = 'AbortError';
  constructor(message = 'The request was aborted', options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function abortError(message = 'The operation was aborted.'): AbortError {
  return new AbortError(message);
}
