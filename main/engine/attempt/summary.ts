/**
 * E10 compaction, the model half: the older turns are rendered as plain text and the SAME model (same StreamFn,
 * same key) writes a summary of them. The request is sized before it is sent — a conversation longer than the
 * window is summarised in parts, each part folding into the summary so far — and a part that the provider still
 * rejects as too long is halved (at most MAX_SPLITS times). So a compaction request can never overflow in a loop
 * (OpenClaw #13624: the compaction request itself overflowed and only /reset recovered).
 */
import type { Message, Usage, UserMessage } from '../messages.js';
import { assistantText } from '../messages.js';
import type { ModelDef, StreamFn } from '../../providers/types.js';
import { classifyError } from '../classify.js';
import { estimateTokens } from './tokens.js';
import { truncateToolResultText } from './tool-result-truncation.js';

/** The system prompt of a summary request. The marker line lets test servers recognise one. */
export const SUMMARY_SYSTEM_PROMPT = `[context compaction]
You write the working memory of an assistant whose conversation grew too long for its context window.
Summarise the conversation you are given so the assistant can continue the task without it. Keep: the user's goals
and requests, decisions and their reasons, file paths, commands and their outcomes, errors still open, and what
remains to do. Leave out pleasantries and anything already superseded. Write plain text, at most about 400 words.`;

/** Opening of the message that carries the summary into the context. */
export const SUMMARY_PREFIX = 'The earlier part of this conversation was compacted. Summary of it:';

/** Tool results inside a summary request are cut to this many characters (the summary keeps outcomes). */
export const SUMMARY_TOOL_RESULT_CHARS = 2_000;
/** Tokens left for the summary itself and the request framing. */
export const SUMMARY_OUTPUT_TOKENS = 2_000;
export const MAX_SPLITS = 3;

export function summaryMessage(summary: string, timestamp: number): UserMessage {
  return { role: 'user', content: `${SUMMARY_PREFIX}\n<summary>\n${summary}\n</summary>`, timestamp };
}

/** One message as transcript text for the summariser. */
export function renderMessage(m: Message): string {
  if (m.role === 'user') return `User: ${m.content}`;
  if (m.role === 'toolResult') {
    return `Tool result (${m.toolName}${m.isError ? ', error' : ''}): ${truncateToolResultText(m.content, SUMMARY_TOOL_RESULT_CHARS)}`;
  }
  const parts: string[] = [];
  for (const b of m.content) {
    if (b.type === 'text' && b.text.trim()) parts.push(`Assistant: ${b.text}`);
    else if (b.type === 'toolCall') parts.push(`Assistant called ${b.name}(${JSON.stringify(b.arguments)})`);
  }
  if (m.stopReason === 'error' || m.stopReason === 'aborted') parts.push(`(this reply was cut off: ${m.errorMessage ?? m.stopReason})`);
  return parts.join('\n');
}

/** Splits rendered messages into parts of at most `maxTokens` each (a single huge message is cut). */
export function splitForSummary(rendered: readonly string[], maxTokens: number): string[] {
  const limit = Math.max(200, maxTokens);
  const parts: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (let text of rendered) {
    if (!text) continue;
    let tokens = estimateTokens(text) + 2;
    if (tokens > limit) {
      text = truncateToolResultText(text, Math.floor((text.length * limit) / tokens));
      tokens = estimateTokens(text) + 2;
    }
    if (size + tokens > limit && current.length > 0) {
      parts.push(current.join('\n\n'));
      current = [];
      size = 0;
    }
    current.push(text);
    size += tokens;
  }
  if (current.length > 0) parts.push(current.join('\n\n'));
  return parts;
}

export interface SummaryDeps {
  /** E17: every summary call is billed (the run's usage meter). */
  meter?: { record(kind: 'compaction', model: ModelDef, usage: Usage): void };
  streamFn: StreamFn;
  model: ModelDef;
  apiKey: string;
  signal: AbortSignal;
  idleTimeoutMs: number;
  now: () => number;
  headers?: Record<string, string>;
}

export interface SummaryInput {
  previousSummary?: string;
  messages: readonly Message[];
  /** Window of the run (already capped by contextTokens). */
  windowTokens: number;
  /** Calibration of the offline estimator (reported / estimated). */
  ratio?: number;
}

export class CompactionError extends Error {
  override name = 'CompactionError';
}

function summaryRequestText(previous: string | undefined, part: string): string {
  const prior = previous ? `Summary of what came before:\n<previous-summary>\n${previous}\n</previous-summary>\n\n` : '';
  return `${prior}Conversation to summarise:\n<conversation>\n${part}\n</conversation>\n\nWrite the updated summary now.`;
}

async function summariseOnce(deps: SummaryDeps, text: string): Promise<string> {
  let failure: unknown;
  let summary = '';
  for await (const event of deps.streamFn({
    model: deps.model,
    apiKey: deps.apiKey,
    systemPrompt: SUMMARY_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: text, timestamp: deps.now() }],
    tools: [],
    thinking: 'off',
    signal: deps.signal,
    idleTimeoutMs: deps.idleTimeoutMs,
    headers: deps.headers,
  })) {
    if (event.type === 'done') summary = assistantText(event.message).trim();
    else if (event.type === 'error') failure = event.error;
    if (event.type === 'done' || event.type === 'error') deps.meter?.record('compaction', deps.model, event.message.usage);
  }
  if (failure !== undefined) throw failure;
  if (!summary) throw new CompactionError('The model returned an empty summary.');
  return summary;
}

/** Writes the summary of `messages` (folded into `previousSummary`), in as many requests as the window needs. */
export async function generateSummary(deps: SummaryDeps, input: SummaryInput): Promise<string> {
  const ratio = input.ratio ?? 1;
  const fixed = estimateTokens(SUMMARY_SYSTEM_PROMPT) + SUMMARY_OUTPUT_TOKENS;
  // What one request may carry: half the window (the rest is framing, the summary so far and the answer).
  let partTokens = Math.floor((input.windowTokens * 0.5 - fixed) / ratio);
  const rendered = input.messages.map(renderMessage);
  for (let split = 0; ; split++) {
    let summary = input.previousSummary;
    try {
      for (const part of splitForSummary(rendered, partTokens)) {
        summary = await summariseOnce(deps, summaryRequestText(summary, part));
      }
      if (summary === undefined) throw new CompactionError('Nothing to summarise.');
      return summary;
    } catch (err) {
      const overflow = classifyError(err).reason === 'context_overflow';
      if (!overflow || split >= MAX_SPLITS) throw err;
      partTokens = Math.floor(partTokens / 2);
    }
  }
}
