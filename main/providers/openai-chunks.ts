/**
 * Turns raw OpenAI Chat Completions chunks into ProviderEvents. Tolerates the compatible servers' variants:
 * reasoning in `reasoning_content` or `reasoning`, tool calls split into fragments by `index` (OpenAI) or sent
 * whole in one chunk (Ollama), a missing `index` (old Ollama), a name repeated in every fragment, arguments as
 * an object instead of a string, the final usage chunk with `choices: []`, and a flat mid-stream error object.
 */
import type OpenAI from 'openai';
import type { AssistantBuilder } from './assistant-builder.js';
import { mapOpenAIUsage } from './openai-convert.js';
import type { ProviderEvent } from './types.js';

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

export class OpenAIChunkAssembler {
  private readonly calls = new Map<number, CallState>();
  private nextSyntheticKey = 1_000_000;
  private segment = 0;
  private lastKind: 'text' | 'thinking' | 'tool' | undefined;
  private started = false;
  /** The finish_reason, once a choice carried one. */
  finishReason: string | undefined;

  constructor(private readonly b: AssistantBuilder) {}

  /** Events for one chunk. Throws on an error object the SDK let through. */
  push(chunk: OpenAI.Chat.Completions.ChatCompletionChunk): ProviderEvent[] {
    const out: ProviderEvent[] = [];
    const emit = (e: ProviderEvent | undefined) => {
      if (e) out.push(e);
    };
    const loose = chunk as unknown as { object?: unknown; message?: unknown };
    if (loose.object === 'error') {
      // vLLM < 0.10.1 sends a flat error object mid-stream that the SDK yields as a chunk.
      throw new Error(String(loose.message ?? 'Provider reported an error'));
    }
    if (!this.started) {
      this.started = true;
      out.push({ type: 'message_start', id: chunk.id });
    }
    if (chunk.usage) out.push(this.b.setUsage(mapOpenAIUsage(chunk.usage)));

    const choice = chunk.choices?.[0];
    if (!choice) return out; // the final usage chunk has choices: []
    const delta = (choice.delta ?? {}) as typeof choice.delta & ExtraDelta;

    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') emit(this.b.appendThinking(this.keyFor('thinking', reasoning), reasoning));
    if (typeof delta.content === 'string') emit(this.b.appendText(this.keyFor('text', delta.content), delta.content));

    const toolDeltas = (delta.tool_calls ?? []) as ToolCallDelta[];
    for (const [pos, tc] of toolDeltas.entries()) out.push(...this.toolDelta(pos, tc));

    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      // "length": the output limit cut the reply, maybe inside a call's arguments (that call does not run).
      out.push(...this.b.endOpenToolCalls(choice.finish_reason === 'length'));
    }
    return out;
  }

  /** A new block whenever the kind of content changes (thinking → text → thinking…). */
  private keyFor(kind: 'text' | 'thinking', delta: string): string {
    if (delta !== '' && this.lastKind !== kind) {
      this.segment++;
      this.lastKind = kind;
    }
    return `${kind}${this.segment}`;
  }

  private toolDelta(pos: number, tc: ToolCallDelta): ProviderEvent[] {
    const out: ProviderEvent[] = [];
    let key = typeof tc.index === 'number' ? tc.index : pos;
    let state = this.calls.get(key);
    // A new id at a known index: a server that sends each whole call at the same (or no) index.
    if (state && tc.id && state.id && tc.id !== state.id) {
      key = this.nextSyntheticKey++;
      state = undefined;
    }
    if (!state) {
      state = { pending: '' };
      this.calls.set(key, state);
    }
    if (tc.id) state.id ??= tc.id;
    if (tc.function?.name) state.name ??= tc.function.name; // some servers repeat the name in every delta
    const args = tc.function?.arguments;
    const argText = typeof args === 'string' ? args : args == null ? '' : JSON.stringify(args);

    if (state.builderIndex === undefined && state.name) {
      const { index, event } = this.b.startToolCall(state.id ?? `call_${key}`, state.name.trim());
      state.builderIndex = index;
      this.lastKind = 'tool';
      out.push(event);
      const e = this.b.appendToolArgs(index, state.pending + argText);
      state.pending = '';
      if (e) out.push(e);
    } else if (state.builderIndex === undefined) {
      state.pending += argText;
    } else {
      const e = this.b.appendToolArgs(state.builderIndex, argText);
      if (e) out.push(e);
    }
    return out;
  }
}
