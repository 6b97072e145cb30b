/**
 * Consumes the normalised provider stream of ONE model call and turns it into UI streams (E14):
 * `assistant` text deltas (think/final tags stripped statefully across chunk borders) and `thinking` deltas
 * (native reasoning events and `<think>` content both feed it).
 *
 * Deltas are monotonic: the visible text only ever grows by what was not shown before. If the terminal message
 * carries text we never streamed (a provider that re-sends the whole text at the end), only the unseen suffix is
 * emitted, never the whole text again.
 */
import type { AssistantMessage } from '../messages.js';
import { assistantText } from '../messages.js';
import type { ProviderEvent } from '../../providers/types.js';
import type { RunEmitter } from './run-emitter.js';
import { createThinkTagFilter } from './think-tags.js';

export interface CallOutcome {
  message: AssistantMessage;
  /** Set when the call failed (HTTP error, stream drop, stall, abort…). */
  error?: unknown;
  /** Visible (tag-stripped) assistant text of this call. */
  visibleText: string;
  thinkingText: string;
}

export class CallSubscriber {
  private readonly filter = createThinkTagFilter();
  private visible = '';
  private thinking = '';
  private outcome: { message: AssistantMessage; error?: unknown } | undefined;

  constructor(
    private readonly emitter: RunEmitter,
    private readonly turn: number,
  ) {}

  handle(event: ProviderEvent): void {
    switch (event.type) {
      case 'text_delta':
        this.pushText(event.delta);
        break;
      case 'thinking_delta':
        this.pushThinking(event.delta);
        break;
      case 'toolcall_start':
        // Text before a tool call is complete: release anything held back for a possible split tag.
        this.flushFilter();
        break;
      case 'done':
        this.flushFilter();
        this.reconcile(event.message);
        this.outcome = { message: event.message };
        break;
      case 'error':
        this.flushFilter();
        this.outcome = { message: event.message, error: event.error };
        break;
      default:
        break;
    }
  }

  /** The terminal outcome; a stream that ended without a terminal event is itself an error. */
  finish(fallback: () => AssistantMessage): CallOutcome {
    const outcome = this.outcome ?? {
      message: fallback(),
      error: new Error('provider stream ended without a terminal event'),
    };
    return { ...outcome, visibleText: this.visible, thinkingText: this.thinking };
  }

  private pushText(chunk: string): void {
    const { text, thinking } = this.filter.push(chunk);
    if (thinking) this.pushThinking(thinking);
    if (text) this.emitText(text);
  }

  private flushFilter(): void {
    const { text, thinking } = this.filter.flush();
    if (thinking) this.pushThinking(thinking);
    if (text) this.emitText(text);
  }

  private emitText(delta: string): void {
    this.visible += delta;
    this.emitter.emit('assistant', { delta, text: this.visible, turn: this.turn });
  }

  private pushThinking(delta: string): void {
    this.thinking += delta;
    this.emitter.emit('thinking', { delta, text: this.thinking, turn: this.turn });
  }

  /** Emits only the part of the final text that was never streamed (monotonic deltas). */
  private reconcile(message: AssistantMessage): void {
    const finalFilter = createThinkTagFilter();
    const a = finalFilter.push(assistantText(message));
    const b = finalFilter.flush();
    const finalVisible = a.text + b.text;
    if (finalVisible.length > this.visible.length && finalVisible.startsWith(this.visible)) {
      this.emitText(finalVisible.slice(this.visible.length));
    }
  }
}
