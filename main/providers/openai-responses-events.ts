/**
 * Turns raw OpenAI Responses stream events into ProviderEvents:
 * reasoning summaries (and raw reasoning text) → thinking with the item's id and encrypted content, output text
 * and refusals → text, function_call items → tool calls keyed by output_index. `response.completed` and
 * `response.incomplete` end the stream; `response.failed` and `error` events throw (openai 6.49 yields a flat
 * `error` event as a normal event and resolves on `response.failed`, so both are checked here).
 */
import type OpenAI from 'openai';
import type { AssistantBuilder } from './assistant-builder.js';
import type { DoneReason } from './stream-runner.js';
import { mapResponsesStop, mapResponsesUsage } from './openai-responses-convert.js';
import type { ProviderEvent } from './types.js';

type StreamEvent = OpenAI.Responses.ResponseStreamEvent;
type OutputItem = OpenAI.Responses.ResponseOutputItem;

/** An error the Responses stream reported (an `error` event or `response.failed`). Classified by code/message. */
export class ResponsesStreamError extends Error {
  override readonly name = 'ResponsesStreamError';
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly type: string | undefined,
  ) {
    super(message);
  }
}

interface ErrorFields {
  code?: unknown;
  type?: unknown;
  message?: unknown;
}

function streamError(e: ErrorFields | null | undefined, fallback: string): ResponsesStreamError {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return new ResponsesStreamError(str(e?.message) ?? fallback, str(e?.code), str(e?.type));
}

export class ResponsesEventMapper {
  /** output_index → builder index of a function call. */
  private readonly calls = new Map<number, number>();
  /** output_index → last summary_index seen (a new summary part starts a new paragraph). */
  private readonly summaryPart = new Map<number, number>();
  private started = false;
  private madeToolCalls = false;
  /** Set once a terminal event (completed / incomplete) arrived. */
  done: DoneReason | undefined;

  constructor(private readonly b: AssistantBuilder) {}

  /** Events for one stream event. Throws on `error` and `response.failed`. */
  push(ev: StreamEvent): ProviderEvent[] {
    const out: ProviderEvent[] = [];
    const emit = (e: ProviderEvent | undefined) => {
      if (e) out.push(e);
    };
    switch (ev.type) {
      case 'response.created':
      case 'response.in_progress':
        if (!this.started) {
          this.started = true;
          out.push({ type: 'message_start', id: ev.response.id });
        }
        break;
      case 'response.output_item.added':
        out.push(...this.itemAdded(ev.output_index, ev.item));
        break;
      case 'response.reasoning_summary_text.delta': {
        const prev = this.summaryPart.get(ev.output_index);
        this.summaryPart.set(ev.output_index, ev.summary_index);
        const sep = prev !== undefined && prev !== ev.summary_index ? '\n\n' : '';
        emit(this.b.appendThinking(reasoningKey(ev.output_index), sep + ev.delta));
        break;
      }
      case 'response.reasoning_text.delta':
        emit(this.b.appendThinking(reasoningKey(ev.output_index), ev.delta));
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        emit(this.b.appendText(textKey(ev.output_index), ev.delta));
        this.b.setTextItemId(textKey(ev.output_index), ev.item_id);
        break;
      case 'response.function_call_arguments.delta': {
        const index = this.calls.get(ev.output_index);
        if (index !== undefined) emit(this.b.appendToolArgs(index, ev.delta));
        break;
      }
      case 'response.function_call_arguments.done':
        out.push(...this.endCall(ev.output_index, ev.arguments));
        break;
      case 'response.output_item.done':
        out.push(...this.itemDone(ev.output_index, ev.item));
        break;
      case 'response.completed':
      case 'response.incomplete': {
        const r = ev.response;
        if (r.usage) out.push(this.b.setUsage(mapResponsesUsage(r.usage)));
        this.done = mapResponsesStop(r.status, r.incomplete_details?.reason, this.madeToolCalls);
        out.push(...this.b.endOpenToolCalls(this.done === 'length'));
        break;
      }
      case 'response.failed':
        throw streamError(ev.response.error, 'The provider reported that the response failed');
      case 'error':
        throw streamError(ev, 'The provider reported an error');
      default:
        break; // part added/done, text done, annotations, built-in tool events: nothing to show
    }
    return out;
  }

  private itemAdded(outputIndex: number, item: OutputItem): ProviderEvent[] {
    if (item.type !== 'function_call') return [];
    const { index, event } = this.b.startToolCall(item.call_id, item.name.trim(), item.id);
    this.calls.set(outputIndex, index);
    this.madeToolCalls = true;
    const out: ProviderEvent[] = [event];
    const e = this.b.appendToolArgs(index, item.arguments ?? '');
    if (e) out.push(e);
    return out;
  }

  /** Ends a call; `full` (the done event's complete arguments) stands in for deltas that never came. */
  private endCall(outputIndex: number, full: string | undefined): ProviderEvent[] {
    const index = this.calls.get(outputIndex);
    if (index === undefined) return [];
    const out: ProviderEvent[] = [];
    if (full && this.b.toolArgsText(index) === '') {
      const e = this.b.appendToolArgs(index, full);
      if (e) out.push(e);
    }
    const end = this.b.endToolCall(index);
    if (end) out.push(end);
    return out;
  }

  private itemDone(outputIndex: number, item: OutputItem): ProviderEvent[] {
    if (item.type === 'function_call') return this.endCall(outputIndex, item.arguments);
    if (item.type === 'reasoning') {
      const key = reasoningKey(outputIndex);
      const out: ProviderEvent[] = [];
      // A summary that arrived only whole (no deltas) is still shown.
      if (this.b.indexOf(key) === undefined) {
        const text = item.summary.map((s) => s.text).join('\n\n');
        const e = this.b.appendThinking(key, text);
        if (e) out.push(e);
      }
      this.b.setReasoningItem(key, item.id, item.encrypted_content ?? undefined);
      return out;
    }
    return [];
  }
}

const reasoningKey = (outputIndex: number) => `rs${outputIndex}`;
const textKey = (outputIndex: number) => `msg${outputIndex}`;
