/**
 * Reply shaping (E16): what a run delivered, in order — the visible assistant text of each model call, interim
 * messages posted with `send_message`, and a one-line summary of each tool call — becomes the payloads.
 * - Silent replies are dropped and a leading (glued) or trailing silent token is stripped (silent.ts).
 * - A reply that repeats what the messaging tool already posted in this run (two-phase ledger, containment rule,
 *   messaging-dedupe.ts) is dropped from the final list too — also when the reply streamed before the post was
 *   committed, or came from an attempt after a retry (the ledger belongs to the run).
 * - Verbose: reasoning first, and the inline tool summaries in their place; otherwise neither.
 * - A failed run adds its error text; a run that delivered nothing visible after a tool failure gets a fallback.
 */
import { isMessagingDuplicate } from './messaging-dedupe.js';
import { isSilentReply, stripLeadingSilentToken, stripSilentToken } from './silent.js';

export { isSilentReply, SILENT_REPLY_TOKEN } from './silent.js';

export interface Payload {
  text: string;
  isError?: boolean;
}

/** One thing the run delivered, in order: an assistant reply, a `send_message` post, or a tool call's summary. */
export interface ReplyPart {
  kind: 'reply' | 'message' | 'tool';
  text: string;
}

export const TOOL_ERROR_FALLBACK = 'A tool failed and the model produced no reply. See the tool results above.';

export interface PayloadInput {
  parts: readonly ReplyPart[];
  errorText?: string;
  toolErrors: number;
  /** E16/E21: reasoning first and the inline tool summaries (the run is verbose). */
  verbose?: boolean;
  /** Reasoning of the run (used only when verbose). */
  reasoning?: readonly string[];
  /** Texts the messaging tool committed in this run, normalised (replies repeating one are dropped). */
  sentNormalized?: readonly string[];
}

const SUMMARY_ARGS_MAX = 120;

/** "read notes.txt", "exec npm test — failed: exit 1": one line per tool call, for verbose replies. */
export function toolSummary(name: string, args: Record<string, unknown>, result: string, isError: boolean): string {
  const values = Object.values(args).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  let shown = values.join(' ').replace(/\s+/g, ' ').trim();
  if (shown.length > SUMMARY_ARGS_MAX) shown = `${shown.slice(0, SUMMARY_ARGS_MAX - 1)}…`;
  const head = `🔧 ${name}${shown ? ` ${shown}` : ''}`;
  if (!isError) return head;
  const why = result.split('\n').find((l) => l.trim())?.trim().slice(0, 160) ?? 'error';
  return `${head} — failed: ${why}`;
}

export function buildPayloads(opts: PayloadInput): Payload[] {
  const sent = opts.sentNormalized ?? [];
  const payloads: Payload[] = [];
  let visible = 0;
  for (const part of opts.parts) {
    if (part.kind === 'tool') {
      if (opts.verbose && part.text.trim()) payloads.push({ text: part.text });
      continue;
    }
    if (!part.text.trim() || isSilentReply(part.text)) continue;
    if (part.kind === 'reply' && isMessagingDuplicate(part.text, sent)) continue;
    const text = stripSilentToken(stripLeadingSilentToken(part.text)).trim();
    if (!text) continue;
    payloads.push({ text });
    visible++;
  }
  if (opts.errorText) payloads.push({ text: opts.errorText, isError: true });
  else if (visible === 0 && opts.toolErrors > 0) payloads.push({ text: TOOL_ERROR_FALLBACK, isError: true });
  const reasoning = opts.verbose ? (opts.reasoning ?? []).map((t) => t.trim()).filter(Boolean) : [];
  if (reasoning.length > 0) payloads.unshift({ text: `Reasoning:\n${reasoning.join('\n\n')}` });
  return payloads;
}
