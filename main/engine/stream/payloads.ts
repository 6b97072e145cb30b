/**
 * Reply shaping, first cut of E16: the run's visible assistant texts become payloads; the silent token NO_REPLY is
 * dropped (only when it is the whole reply — text followed by NO_REPLY is NOT silent, OpenClaw #19537); a failed run
 * adds its error text; a run that produced nothing visible after a tool failure gets a fallback reply.
 */
export const SILENT_REPLY_TOKEN = 'NO_REPLY';

export interface Payload {
  text: string;
  isError?: boolean;
}

/** True when the text is only the silent token (any case, whitespace, quotes, `**` or edge punctuation around it). */
export function isSilentReply(text: string): boolean {
  const core = text.trim().replace(/^[\s"'*`.!,:;-]+|[\s"'*`.!,:;-]+$/g, '');
  return core.toUpperCase() === SILENT_REPLY_TOKEN;
}

export const TOOL_ERROR_FALLBACK = 'A tool failed and the model produced no reply. See the tool results above.';

export function buildPayloads(opts: { texts: readonly string[]; errorText?: string; toolErrors: number }): Payload[] {
  const payloads: Payload[] = opts.texts
    .filter((t) => t.trim() && !isSilentReply(t))
    .map((text) => ({ text: text.trim() }));
  if (opts.errorText) payloads.push({ text: opts.errorText, isError: true });
  else if (payloads.length === 0 && opts.toolErrors > 0) payloads.push({ text: TOOL_ERROR_FALLBACK, isError: true });
  return payloads;
}
