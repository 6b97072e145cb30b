/** Turns transcript messages into displayable history entries (think tags moved to the thinking text). */
import type { HistoryEntry, RetryData } from '../../preload/contract.js';
import type { AssistantMessage, Message } from '../engine/messages.js';
import { stripThinkTags } from '../engine/stream/think-tags.js';
import type { CompactionMark } from '../sessions/transcript.js';
import { classifyError } from '../engine/classify.js';
import { providerLabel } from '../../preload/messages/providers.js';
import { toAttachmentDto } from './methods/attachments.js';
import { costOf } from '../engine/attempt/usage.js';
import type { ModelCost } from '../providers/types.js';

/** The price of a "provider/model" ref as a run bills it (the config entry's cost, else the list price). */
export type PriceOf = (ref: string) => ModelCost | undefined;

/** Older transcripts named the API family, not the configured provider. */
const API_NAME: Record<string, string> = { anthropic: 'Anthropic', 'openai-chat': 'OpenAI', 'openai-responses': 'OpenAI' };
/** How lines the engine already described begin (preload/messages): they are shown as stored. */
const DESCRIBED = /^(Could not reach |Model not found|The conversation is too long|Request aborted|Every key of |Failed after |Stopped after |No API key|The provider |The run )/;

/**
 * A failed call's stored error in the same one line the run showed live (the transcript keeps the provider's raw
 * text, e.g. "401 invalid x-api-key"), naming the provider as configured (preload/messages/providers.ts), so the
 * chat reads the same after a reload.
 */
export function storedErrorLine(api: string, stopReason: string, raw: string | undefined, provider?: string, profileId?: string): string | undefined {
  if (!raw || stopReason !== 'error') return raw;
  const names = [API_NAME[api], provider, provider ? providerLabel(provider) : undefined].filter((n): n is string => !!n);
  if (DESCRIBED.test(raw) || names.some((n) => raw.startsWith(`${n} `))) return raw; // already a described line
  if (!API_NAME[api]) return raw; // a marker the run wrote (api "none"), not a provider's text
  const c = classifyError(raw, Date.now(), provider ?? API_NAME[api], profileId);
  // the SDK error's text carries the body's type, e.g. "(authentication_error)", which the live line leaves out
  return c.reason === 'unknown' ? raw : c.message.replace(/ \([a-z_]+_error\)$/, '');
}

/** Every message of the transcript, with a `compaction` divider where each compaction record stands. */
export function toHistory(messages: readonly Message[], compactions: readonly CompactionMark[] = [], priceOf: PriceOf = () => undefined): HistoryEntry[] {
  const entries = messages.map((m) => toEntry(m, priceOf));
  // Insert from the last mark backwards so earlier positions stay valid.
  for (const { record, atMessage } of [...compactions].reverse()) {
    entries.splice(Math.min(atMessage, entries.length), 0, {
      role: 'compaction',
      summary: record.summary,
      tokensBefore: record.tokensBefore,
      tokensAfter: record.tokensAfter,
      timestamp: record.timestamp,
    });
  }
  return entries;
}

function toEntry(m: Message, priceOf: PriceOf): HistoryEntry {
  if (m.role === 'user') return { role: 'user', text: m.content, timestamp: m.timestamp, ...(m.attachments?.length ? { attachments: m.attachments.map(toAttachmentDto) } : {}) };
  if (m.role === 'toolResult') {
    return {
      role: 'toolResult',
      toolCallId: m.toolCallId,
      toolName: m.toolName,
      content: m.content,
      isError: m.isError,
      timestamp: m.timestamp,
      ...(m.durationMs !== undefined ? { durationMs: m.durationMs } : {}),
    };
  }
  let text = '';
  let thinking = '';
  const toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] = [];
  for (const block of m.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'thinking') thinking += block.thinking;
    else toolCalls.push({ id: block.id, name: block.name, arguments: block.arguments });
  }
  const split = stripThinkTags(text);
  return {
    role: 'assistant',
    text: split.text,
    thinking: thinking + split.thinking,
    toolCalls,
    stopReason: m.stopReason,
    ...(m.errorMessage ? { errorMessage: storedErrorLine(m.api, m.stopReason, m.errorMessage, m.provider, m.profileId) } : {}),
    timestamp: m.timestamp,
    model: `${m.provider}/${m.model}`,
    ...(m.api === 'demo' || m.provider === 'demo' ? { demo: true } : {}),
    usage: { input: m.usage.input, output: m.usage.output, cacheRead: m.usage.cacheRead, cacheWrite: m.usage.cacheWrite },
    ...withCost(m, priceOf),
    ...retriesOf(m),
  };
}

/** What this call was billed (USD), as the run's `meta.usage.cost` and the ledger count it; absent when unpriced. */
function withCost(m: AssistantMessage, priceOf: PriceOf): { cost?: number } {
  const cost = costOf(m.usage, priceOf(`${m.provider}/${m.model}`));
  return cost === undefined ? {} : { cost };
}

/** The stored retry lines that have the shape the window reads (a line written by another version may not). */
function retriesOf(m: AssistantMessage): { retries?: RetryData[] } {
  if (!Array.isArray(m.retries)) return {};
  const ok = m.retries.filter(
    (r) => typeof r === 'object' && r !== null && typeof r.reason === 'string' && typeof r.provider === 'string' && typeof r.model === 'string' && typeof r.next?.action === 'string',
  );
  return ok.length > 0 ? { retries: ok } : {};
}
