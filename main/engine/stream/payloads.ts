/**
 * Reply shaping (E16): the run's delivered texts (visible assistant text of each model call and interim messages
 * posted with `send_message`, in order) become payloads. Silent replies are dropped and a trailing silent token is
 * stripped (silent.ts); reasoning is added first when the run is verbose; a failed run adds its error text; a run
 * that delivered nothing visible after a tool failure gets a fallback reply.
 */
import { isSilentReply, stripLeadingSilentToken, stripSilentToken } from './silent.js';

export { isSilentReply, SILENT_REPLY_TOKEN } from './silent.js';

export interface Payload {
  text: string;
  isError?: boolean;
}

export const TOOL_ERROR_FALLBACK = 'A tool failed and the model produced no reply. See the tool results above.';

export interface PayloadInput {
  texts: readonly string[];
  errorText?: string;
  toolErrors: number;
  /** Reasoning of the run, included only when reasoning is shown (verbose). */
  reasoning?: readonly string[];
}

export function buildPayloads(opts: PayloadInput): Payload[] {
  const reasoning = (opts.reasoning ?? []).map((t) => t.trim()).filter(Boolean);
  const payloads: Payload[] = opts.texts
    .filter((t) => t.trim() && !isSilentReply(t))
    .map((t) => stripSilentToken(stripLeadingSilentToken(t)).trim())
    .filter(Boolean)
    .map((text) => ({ text }));
  if (opts.errorText) payloads.push({ text: opts.errorText, isError: true });
  else if (payloads.length === 0 && opts.toolErrors > 0) payloads.push({ text: TOOL_ERROR_FALLBACK, isError: true });
  if (reasoning.length > 0) payloads.unshift({ text: `Reasoning:\n${reasoning.join('\n\n')}` });
  return payloads;
}
