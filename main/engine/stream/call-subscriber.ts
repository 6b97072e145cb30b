/**
 * Consumes the normalised provider stream of ONE model call and turns it into UI streams (E14, E15, E16):
 * `assistant` text deltas (think/final tags stripped statefully across chunk borders, silent and duplicate replies
 * held back by the reply gate), `assistant` block events (E15), and `thinking` deltas (native reasoning events and
 * `<think>` content both feed it).
 *
 * Deltas are monotonic (the seed's three cases, applied when the terminal message's text is compared with what was
 * streamed): the final text extends what was streamed → only the unseen suffix is added; it is a prefix of what
 * was streamed → nothing; it is new text not contained in what was streamed → it is added once. Text contained in
 * the middle of what was streamed adds nothing.
 */
import type { AssistantMessage } from '../messages.js';
import { assistantText } from '../messages.js';
import type { ModelDef, ProviderEvent } from '../../providers/types.js';
import type { RunEmitter } from './run-emitter.js';
import { createThinkTagFilter } from './think-tags.js';
import { ReplyGate } from './reply-gate.js';
import { BlockChunker, type ChunkSizes } from './block-chunker.js';
import { TextParts } from './text-parts.js';

export interface CallOutcome {
  message: AssistantMessage;
  /** Set when the call failed (HTTP error, stream drop, stall, abort…). */
  error?: unknown;
  /** Visible (tag-stripped, gated) assistant text of this call. */
  visibleText: string;
  thinkingText: string;
  /** Set when the reply was withheld: a silent reply, or a repeat of a message already posted. */
  suppressed?: 'silent' | 'duplicate';
}

export interface SubscriberOptions {
  /** Hold the message start until it is clear whether it is reasoning (see ThinkTagFilterOptions.holdStart). */
  holdStart?: boolean;
  /** Normalised texts the messaging tool already posted in this run (for duplicate suppression). */
  sentNormalized?: () => readonly string[];
  chunkSizes?: ChunkSizes;
}

/**
 * Whether a model may answer DeepSeek-R1 style (reasoning closed by a lone `</think>`): a reasoning model behind an
 * OpenAI-compatible endpoint other than OpenAI's own (whose reasoning never appears inline). Only for those is the
 * message start held back, since holding costs streaming latency.
 */
export function mayCloseThinkWithoutOpener(model: ModelDef): boolean {
  return model.api === 'openai-chat' && model.reasoning && model.provider !== 'openai';
}

/** The three monotonic-delta cases: what of the final `content` is still to be added after `streamed`. */
export function unseenText(streamed: string, content: string): string {
  if (content.startsWith(streamed)) return content.slice(streamed.length);
  if (streamed.startsWith(content)) return '';
  if (!streamed.includes(content)) return content;
  return '';
}

export class CallSubscriber {
  private readonly filter;
  private readonly chunker;
  private gate: ReplyGate;
  /** Everything streamed as text (tags included), read once at the end. */
  private readonly raw = new TextParts();
  private visible = '';
  private thinking = '';
  private suppressed: CallOutcome['suppressed'];
  private outcome: { message: AssistantMessage; error?: unknown } | undefined;

  constructor(
    private readonly emitter: RunEmitter,
    private readonly turn: number,
    private readonly opts: SubscriberOptions = {},
  ) {
    this.filter = createThinkTagFilter({ holdStart: opts.holdStart });
    this.chunker = new BlockChunker(opts.chunkSizes);
    this.gate = new ReplyGate(opts.sentNormalized);
  }

  handle(event: ProviderEvent): void {
    switch (event.type) {
      case 'text_delta':
        this.raw.push(event.delta);
        this.pushText(event.delta);
        break;
      case 'thinking_delta':
        this.pushThinking(event.delta);
        break;
      case 'toolcall_start':
        // Text before a tool call is complete: release what was held and flush the pending block first (E15).
        this.endText();
        this.gate = new ReplyGate(this.opts.sentNormalized);
        break;
      case 'done':
        this.pushRaw(unseenText(this.raw.text, assistantText(event.message)));
        this.endText();
        this.outcome = { message: event.message };
        break;
      case 'error':
        this.endText();
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
    return {
      ...outcome,
      visibleText: this.visible,
      thinkingText: this.thinking,
      ...(this.suppressed ? { suppressed: this.suppressed } : {}),
    };
  }

  private pushRaw(chunk: string): void {
    if (chunk === '') return;
    this.raw.push(chunk);
    this.pushText(chunk);
  }

  private pushText(chunk: string): void {
    const { text, thinking } = this.filter.push(chunk);
    if (thinking) this.pushThinking(thinking);
    if (text) this.emitText(this.gate.push(text));
  }

  private endText(): void {
    const { text, thinking } = this.filter.flush();
    if (thinking) this.pushThinking(thinking);
    if (text) this.emitText(this.gate.push(text));
    const end = this.gate.end();
    if (end.suppressed) this.suppressed = end.suppressed;
    this.emitText(end.release);
    for (const block of this.chunker.flush()) this.emitBlock(block);
  }

  private emitText(delta: string): void {
    if (delta === '') return;
    this.visible += delta;
    this.emitter.emit('assistant', { delta, text: this.visible, turn: this.turn });
    for (const block of this.chunker.append(delta)) this.emitBlock(block);
  }

  private emitBlock(block: string): void {
    if (!block.trim()) return;
    this.emitter.emit('assistant', { delta: '', text: this.visible, turn: this.turn, block });
  }

  private pushThinking(delta: string): void {
    this.thinking += delta;
    this.emitter.emit('thinking', { delta, text: this.thinking, turn: this.turn });
  }
}
