/**
 * T4: tool results sized to the context window of the run they serve (inventory §10), all pure.
 *
 * - Per-result cap = min(floor(window × 0.3) × 4, auto) characters, auto = 16 000 (window < 100k), 32 000
 *   (≥ 100k), 64 000 (≥ 200k). A 128k window gives 32 000, a 200k window 64 000, a 20k window 16 000.
 * - Aggregate cap per request = max(4 × per-result, 2 × window) characters. Results are kept newest first; older
 *   ones that no longer fit are shrunk, and elided once too little room is left for them.
 * - Truncation keeps at least 2 000 characters, cuts at a newline when one lies in the last 20 % of what is kept,
 *   keeps an "important" tail (errors, tracebacks, exit codes, summaries, a closing brace) next to the head, and
 *   says how much was cut.
 */
import type { Message, ToolResultMessage } from '../messages.js';

export const MIN_KEEP_CHARS = 2_000;
const NEWLINE_WINDOW = 0.2;
const TAIL_SHARE = 0.3;
const TAIL_MAX_CHARS = 4_000;
/** Characters of the tail inspected for "important" content. */
const TAIL_PROBE_CHARS = 2_000;
/** Room for the truncation note and the newline cut when aiming at a size. */
const NOTE_ALLOWANCE = 120;

export const MIDDLE_OMITTED_NOTE = '\n⚠️ [... middle content omitted — showing head and tail ...]\n';
export const truncatedNote = (cut: number): string =>
  `\n[... ${cut} more characters truncated; rerun with narrower args if needed]`;
export const ELIDED_NOTE = (chars: number): string =>
  `[tool result elided: aggregate tool-result budget exceeded (${chars} characters); rerun the tool with narrower args if it is still needed]`;

export interface ToolResultCaps {
  /** Characters one tool result may keep. */
  perResultChars: number;
  /** Characters all tool results of one request may keep together. */
  aggregateChars: number;
}

function autoCap(windowTokens: number): number {
  if (windowTokens >= 200_000) return 64_000;
  if (windowTokens >= 100_000) return 32_000;
  return 16_000;
}

export function toolResultCaps(windowTokens: number, override?: number): ToolResultCaps {
  const window = Math.max(1, Math.floor(windowTokens));
  const derived = Math.min(Math.floor(window * 0.3) * 4, autoCap(window));
  const perResultChars = Math.max(MIN_KEEP_CHARS, override ?? derived);
  return { perResultChars, aggregateChars: Math.max(4 * perResultChars, 2 * window) };
}

const IMPORTANT_TAIL =
  /\b(?:error|exception|traceback|panic|fatal|failed|failure|exit (?:code|status)|exited with|summary|total|passed)\b|\}\s*$/i;

/** Whether the end of `text` holds something a model needs (an error, exit code, summary, closing brace). */
export function hasImportantTail(text: string): boolean {
  return IMPORTANT_TAIL.test(text.slice(-TAIL_PROBE_CHARS));
}

/** Cuts `head` back to its last newline when that newline lies in the last 20 % of it. */
function cutAtNewline(head: string): string {
  const nl = head.lastIndexOf('\n');
  return nl >= 0 && nl >= head.length * (1 - NEWLINE_WINDOW) ? head.slice(0, nl) : head;
}

/** Starts `tail` after its first newline when that newline lies in the first 20 % of it. */
function tailFromNewline(tail: string): string {
  const nl = tail.indexOf('\n');
  return nl >= 0 && nl < tail.length * NEWLINE_WINDOW ? tail.slice(nl + 1) : tail;
}

/**
 * `text` cut to about `maxChars` (never below MIN_KEEP_CHARS of content); unchanged when it fits. The note of what
 * was cut comes on top of the kept content.
 */
export function truncateToolResultText(text: string, maxChars: number): string {
  const budget = Math.max(MIN_KEEP_CHARS, Math.floor(maxChars));
  if (text.length <= budget) return text;
  let head: string;
  let tail = '';
  if (hasImportantTail(text)) {
    const tailChars = Math.min(Math.floor(budget * TAIL_SHARE), TAIL_MAX_CHARS);
    head = cutAtNewline(text.slice(0, budget - tailChars));
    tail = tailFromNewline(text.slice(text.length - tailChars));
  } else {
    head = cutAtNewline(text.slice(0, budget));
  }
  const cut = text.length - head.length - tail.length;
  return tail ? `${head}${MIDDLE_OMITTED_NOTE}${tail}${truncatedNote(cut)}` : `${head}${truncatedNote(cut)}`;
}

export interface BudgetResult {
  messages: Message[];
  /** Tool results that were shortened or elided. */
  truncated: number;
  /** Characters removed in total. */
  removedChars: number;
}

const shrink = (m: ToolResultMessage, content: string): ToolResultMessage => ({ ...m, content });

/**
 * Applies the per-result cap to every tool result and the aggregate cap to all of them (newest kept first).
 * Pure: unchanged messages are reused, changed ones copied.
 */
export function applyToolResultBudget(messages: readonly Message[], caps: ToolResultCaps): BudgetResult {
  const out = [...messages];
  let remaining = caps.aggregateChars;
  let truncated = 0;
  let removedChars = 0;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i]!;
    if (m.role !== 'toolResult') continue;
    let content = m.content;
    if (content.length > caps.perResultChars) content = truncateToolResultText(content, caps.perResultChars);
    if (content.length > remaining) {
      content = remaining >= MIN_KEEP_CHARS ? truncateToolResultText(content, remaining) : ELIDED_NOTE(m.content.length);
    }
    remaining = Math.max(0, remaining - content.length);
    if (content !== m.content) {
      truncated++;
      removedChars += m.content.length - content.length;
      out[i] = shrink(m, content);
    }
  }
  return { messages: out, truncated, removedChars };
}

/** Characters that shrinking every tool result down to MIN_KEEP_CHARS could still remove. */
export function reducibleToolResultChars(messages: readonly Message[]): number {
  let sum = 0;
  for (const m of messages) {
    if (m.role === 'toolResult' && m.content.length > MIN_KEEP_CHARS * 1.5) sum += m.content.length - MIN_KEEP_CHARS;
  }
  return sum;
}

/**
 * Shrinks tool results, oldest first, until about `charsToFree` characters are gone (each keeps at least
 * MIN_KEEP_CHARS). The preemptive "truncate tool results" route uses it when the standard caps are not enough.
 */
export function shrinkToolResults(messages: readonly Message[], charsToFree: number): BudgetResult {
  return shrinkWith(messages, charsToFree);
}

/**
 * The tool results `shrinkToolResults` would shorten, with their new text — what a `tool_results` transcript
 * record stores (the transcript is never edited; the record is applied when the context is loaded).
 */
export function shortenedResults(messages: readonly Message[], charsToFree: number): { toolCallId: string; content: string }[] {
  const out: { toolCallId: string; content: string }[] = [];
  const shrunk = shrinkWith(messages, charsToFree).messages;
  shrunk.forEach((m, i) => {
    if (m !== messages[i] && m.role === 'toolResult') out.push({ toolCallId: m.toolCallId, content: m.content });
  });
  return out;
}

function shrinkWith(messages: readonly Message[], charsToFree: number): BudgetResult {
  const out = [...messages];
  let left = charsToFree;
  let truncated = 0;
  let removedChars = 0;
  for (let i = 0; i < out.length && left > 0; i++) {
    const m = out[i]!;
    if (m.role !== 'toolResult' || m.content.length <= MIN_KEEP_CHARS * 1.5) continue;
    // The note and a cut at a line end take back a little of what is removed: aim past the request by that much.
    const target = Math.max(MIN_KEEP_CHARS, m.content.length - left - NOTE_ALLOWANCE);
    const content = truncateToolResultText(m.content, target);
    const removed = m.content.length - content.length;
    if (removed <= 0) continue;
    out[i] = shrink(m, content);
    truncated++;
    removedChars += removed;
    left -= removed;
  }
  return { messages: out, truncated, removedChars };
}
