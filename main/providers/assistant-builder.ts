/**
 * Assembles the AssistantMessage from exactly the deltas a provider emits, so the final message can never hold
 * text the stream did not show (and never holds it twice). Every method that changes content returns the
 * ProviderEvent to emit for that change.
 */
import type { AssistantBlock, AssistantMessage, StopReason, Usage } from '../engine/messages.js';
import { emptyUsage } from '../engine/messages.js';
import type { ModelDef, ProviderEvent } from './types.js';
import { cutOffError, parseToolArgs } from './tool-args.js';
import { TextParts } from '../engine/stream/text-parts.js';

interface OpenToolCall {
  id: string;
  name: string;
  raw: string;
  ended: boolean;
}

type ToolEndEvent = Extract<ProviderEvent, { type: 'toolcall_end' }>;

export class AssistantBuilder {
  private readonly blocks: AssistantBlock[] = [];
  private readonly tools = new Map<number, OpenToolCall>();
  private readonly keys = new Map<string, number>();
  /** Streamed text of text and thinking blocks (block index → pieces), put into the blocks by `snapshot`. */
  private readonly streamed = new Map<number, TextParts>();
  private usage: Usage = emptyUsage();
  private readonly timestamp: number;

  constructor(
    private readonly model: ModelDef,
    now: () => number = Date.now,
  ) {
    this.timestamp = now();
  }

  /** Block index of a keyed block, if it was created. */
  indexOf(key: string): number | undefined {
    return this.keys.get(key);
  }

  /**
   * Text and thinking blocks are created lazily, on their first non-empty delta, so the message never holds an
   * empty block and event indices always equal indices into the final `content`. `key` names the provider's
   * block (e.g. Anthropic's block index); deltas with the same key go to the same block.
   */
  appendText(key: string, delta: string): ProviderEvent | undefined {
    if (delta === '') return undefined;
    const index = this.keys.get(key) ?? this.ensure(key, () => ({ type: 'text', text: '' }));
    if (this.blocks[index]!.type !== 'text') return undefined;
    this.textOf(index).push(delta);
    return { type: 'text_delta', index, delta };
  }

  appendThinking(key: string, delta: string): ProviderEvent | undefined {
    if (delta === '') return undefined;
    const index = this.keys.get(key) ?? this.ensure(key, () => ({ type: 'thinking', thinking: '' }));
    if (this.blocks[index]!.type !== 'thinking') return undefined;
    this.textOf(index).push(delta);
    return { type: 'thinking_delta', index, delta };
  }

  /** Anthropic signature (may arrive for a block whose thinking text is omitted: the block must still exist). */
  appendSignature(key: string, signature: string): void {
    if (signature === '') return;
    const index = this.ensure(key, () => ({ type: 'thinking', thinking: '' }));
    const b = this.blocks[index]!;
    if (b.type === 'thinking') b.signature = (b.signature ?? '') + signature;
  }

  /**
   * OpenAI Responses: the reasoning item's id and encrypted content. The thinking block must exist even when no
   * summary text was streamed, so the item can be sent back.
   */
  setReasoningItem(key: string, itemId: string, encrypted: string | undefined): void {
    const index = this.ensure(key, () => ({ type: 'thinking', thinking: '' }));
    const b = this.blocks[index]!;
    if (b.type !== 'thinking') return;
    b.itemId = itemId;
    if (encrypted) b.encrypted = encrypted;
  }

  /** Records the provider's item id on a text block that exists (OpenAI Responses `msg_…`). */
  setTextItemId(key: string, itemId: string): void {
    const index = this.keys.get(key);
    const b = index === undefined ? undefined : this.blocks[index];
    if (b?.type === 'text') b.itemId = itemId;
  }

  addRedactedThinking(data: string): void {
    this.blocks.push({ type: 'thinking', thinking: '', redacted: data });
  }

  private textOf(index: number): TextParts {
    let parts = this.streamed.get(index);
    if (!parts) {
      parts = new TextParts();
      this.streamed.set(index, parts);
    }
    return parts;
  }

  private ensure(key: string, make: () => AssistantBlock): number {
    let index = this.keys.get(key);
    if (index === undefined) {
      this.blocks.push(make());
      index = this.blocks.length - 1;
      this.keys.set(key, index);
    }
    return index;
  }

  startToolCall(id: string, name: string, itemId?: string): { index: number; event: ProviderEvent } {
    this.blocks.push({ type: 'toolCall', id, name, arguments: {}, ...(itemId ? { itemId } : {}) });
    const index = this.blocks.length - 1;
    this.tools.set(index, { id, name, raw: '', ended: false });
    return { index, event: { type: 'toolcall_start', index, id, name } };
  }

  /** The argument text received so far for a tool call ('' when unknown). */
  toolArgsText(index: number): string {
    return this.tools.get(index)?.raw ?? '';
  }

  appendToolArgs(index: number, delta: string): ProviderEvent | undefined {
    const t = this.tools.get(index);
    if (!t || t.ended || delta === '') return undefined;
    t.raw += delta;
    return { type: 'toolcall_delta', index, delta };
  }

  /**
   * Parses (and if needed repairs) the call's argument JSON. Returns undefined if already ended or unknown.
   * `atLimit`: the reply reached its output token limit here (finish_reason "length") — arguments that needed any
   * repair were cut by it, and the call must not run (a `parseError` says so).
   */
  endToolCall(index: number, atLimit = false): ToolEndEvent | undefined {
    const t = this.tools.get(index);
    const b = this.blocks[index];
    if (!t || t.ended || !b || b.type !== 'toolCall') return undefined;
    t.ended = true;
    const parsed = parseToolArgs(t.raw);
    b.arguments = parsed.arguments;
    const ev: ToolEndEvent = { type: 'toolcall_end', index, id: t.id, name: t.name, arguments: parsed.arguments };
    if (atLimit && (parsed.cutOff || parsed.repaired)) ev.parseError = cutOffError(t.raw, true);
    else if (parsed.parseError !== undefined) ev.parseError = parsed.parseError;
    return ev;
  }

  /** Ends every tool call still open (a provider that never sent its block-stop event); `atLimit` as endToolCall. */
  endOpenToolCalls(atLimit = false): ToolEndEvent[] {
    const out: ToolEndEvent[] = [];
    for (const index of [...this.tools.keys()].sort((a, b) => a - b)) {
      const ev = this.endToolCall(index, atLimit);
      if (ev) out.push(ev);
    }
    return out;
  }

  setUsage(usage: Usage): ProviderEvent {
    this.usage = { ...usage };
    return { type: 'usage', usage: { ...usage } };
  }

  /** The message as far as it got. Tool calls still open get best-effort arguments (without events). */
  snapshot(stopReason: StopReason, errorMessage?: string): AssistantMessage {
    const content: AssistantBlock[] = this.blocks.map((b, i) => {
      const streamed = this.streamed.get(i);
      if (b.type === 'text') return streamed ? { ...b, text: streamed.text } : { ...b };
      if (b.type === 'thinking') return streamed ? { ...b, thinking: streamed.text } : { ...b };
      const t = this.tools.get(i);
      return { ...b, arguments: t && !t.ended ? parseToolArgs(t.raw).arguments : b.arguments };
    });
    const msg: AssistantMessage = {
      role: 'assistant',
      content,
      provider: this.model.provider,
      model: this.model.id,
      api: this.model.api,
      usage: { ...this.usage },
      stopReason,
      timestamp: this.timestamp,
    };
    if (errorMessage !== undefined) msg.errorMessage = errorMessage;
    return msg;
  }
}
