/**
 * OpenAI Chat Completions StreamFn (also OpenAI-compatible servers). Iterates raw chunks: the SDK's stream helper
 * throws on deltas without `role` or tool-call `type`, and keeps only the last fragment of non-standard
 * reasoning fields.
 */
import OpenAI from 'openai';
import { ClientCache } from './client-cache.js';
import { StreamTruncatedError } from './errors.js';
import { mapOpenAIFinishReason, mapOpenAIUsage, toOpenAIParams } from './openai-convert.js';
import { runProviderStream, type DoneReason, type StreamContext } from './stream-runner.js';
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

const clients = new ClientCache<OpenAI>(
  (baseUrl, apiKey) =>
    // The engine does its own failover; openai 6.x also sleeps any retry-after while ignoring abort.
    new OpenAI({ apiKey: apiKey || 'none', ...(baseUrl ? { baseURL: baseUrl } : {}), maxRetries: 0 }),
);

export const streamOpenAIChat: StreamFn = (req) => runProviderStream(req, (ctx) => openAIChatBody(req, ctx));

/** Fields some compatible servers add to the delta. */
interface ExtraDelta {
  reasoning_content?: unknown;
  reasoning?: unknown;
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: unknown };
}

interface CallState {
  builderIndex?: number;
  id?: string;
  name?: string;
  /** Argument text received before the name (started calls stream their arguments directly). */
  pending: string;
}

async function* openAIChatBody(req: StreamRequest, ctx: StreamContext): AsyncGenerator<ProviderEvent, DoneReason> {
  const client = clients.get(req.model.baseUrl, req.apiKey);
  const stream = await ctx.watch(
    client.chat.completions.create(toOpenAIParams(req), {
      signal: ctx.signal,
      ...(req.headers ? { headers: req.headers } : {}),
    }),
  );

  const b = ctx.builder;
  const calls = new Map<number, CallState>();
  let nextSyntheticKey = 1_000_000;
  let segment = 0;
  let lastKind: 'text' | 'thinking' | 'tool' | undefined;
  let started = false;
  let finishReason: string | undefined;

  const keyFor = (kind: 'text' | 'thinking'): string => {
    if (lastKind !== kind) segment++;
    lastKind = kind;
    return `${kind}${segment}`;
  };

  for await (const chunk of ctx.events(stream)) {
    const flatError = (chunk as { object?: unknown; message?: unknown }).object === 'error';
    if (flatError) {
      // vLLM < 0.10.1 sends a flat error object mid-stream that the SDK yields as a chunk.
      throw new Error(String((chunk as { message?: unknown }).message ?? 'Provider reported an error'));
    }
    if (!started) {
      started = true;
      yield { type: 'message_start', id: chunk.id };
    }
    if (chunk.usage) yield b.setUsage(mapOpenAIUsage(chunk.usage));

    const choice = chunk.choices?.[0];
    if (!choice) continue; // the final usage chunk has choices: []
    const delta = (choice.delta ?? {}) as typeof choice.delta & ExtraDelta;

    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      const e = b.appendThinking(keyFor('thinking'), reasoning);
      if (e) yield e;
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      const e = b.appendText(keyFor('text'), delta.content);
      if (e) yield e;
    }

    const toolDeltas = (delta.tool_calls ?? []) as ToolCallDelta[];
    for (const [pos, tc] of toolDeltas.entries()) {
      let key = typeof tc.index === 'number' ? tc.index : pos;
      let state = calls.get(key);
      // A new id at a known index: a server that sends each whole call at the same (or no) index.
      if (state && tc.id && state.id && tc.id !== state.id) {
        key = nextSyntheticKey++;
        state = undefined;
      }
      if (!state) {
        state = { pending: '' };
        calls.set(key, state);
      }
      if (tc.id) state.id ??= tc.id;
      if (tc.function?.name) state.name ??= tc.function.name; // some servers repeat the name in every delta
      const args = tc.function?.arguments;
      const argText = typeof args === 'string' ? args : args == null ? '' : JSON.stringify(args);

      if (state.builderIndex === undefined && state.name) {
        const { index, event } = b.startToolCall(state.id ?? `call_${key}`, state.name.trim());
        state.builderIndex = index;
        lastKind = 'tool';
        yield event;
        const buffered = state.pending + argText;
        state.pending = '';
        const e = b.appendToolArgs(index, buffered);
        if (e) yield e;
      } else if (state.builderIndex === undefined) {
        state.pending += argText;
      } else {
        const e = b.appendToolArgs(state.builderIndex, argText);
        if (e) yield e;
      }
    }

    if (choice.finish_reason) {
      finishReason = choice.finish_reason;
      for (const e of b.endOpenToolCalls()) yield e;
    }
  }

  if (finishReason === undefined) throw new StreamTruncatedError('OpenAI stream ended before finish_reason');
  return mapOpenAIFinishReason(finishReason);
}
