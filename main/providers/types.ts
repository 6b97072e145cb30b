/**
 * The one normalised event stream every provider produces (Anthropic Messages, OpenAI Chat, the demo model).
 *
 * Contract of a StreamFn:
 * - It never throws once called; every failure (HTTP error, dropped connection, stall, abort, EOF without a
 *   terminal event) ends the stream with exactly one `error` event.
 * - A successful stream ends with exactly one `done` event.
 * - Both terminal events carry the assistant message as far as it got (stopReason `error`/`aborted` on failure).
 */
import type { AssistantMessage, Message, StopReason, Usage } from '../engine/messages.js';

export type ApiKind = 'anthropic' | 'openai-chat' | 'openai-responses' | 'demo';

export type ThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high';

/** Prices in USD per million tokens (cache prices default to the input price). */
export interface ModelCost {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface ModelDef {
  provider: string;
  id: string;
  api: ApiKind;
  baseUrl?: string;
  contextWindow: number;
  maxTokens: number;
  reasoning: boolean;
  /** E17/X4: the price, where known (built-in models, or `cost` in the model's config entry). */
  cost?: ModelCost;
  /** X3: what the model takes — `["text", "image"]` for a vision model (the model entry's `input`; default text only). */
  input?: ReadonlyArray<'text' | 'image'>;
}

/** X3: does the model take images? */
export const takesImages = (model: Pick<ModelDef, 'input'>): boolean => model.input?.includes('image') === true;

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface StreamRequest {
  model: ModelDef;
  apiKey: string;
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
  thinking: ThinkingLevel;
  signal: AbortSignal;
  /** A stream that produces no bytes for this long ends with a timeout error (the SDKs never time out a body). */
  idleTimeoutMs: number;
  /** Extra HTTP headers (tests use them to pick fake-server scenarios). */
  headers?: Record<string, string>;
}

export type ProviderEvent =
  | { type: 'message_start'; id?: string }
  | { type: 'text_delta'; index: number; delta: string }
  | { type: 'thinking_delta'; index: number; delta: string }
  | { type: 'toolcall_start'; index: number; id: string; name: string }
  | { type: 'toolcall_delta'; index: number; delta: string }
  | {
      type: 'toolcall_end';
      index: number;
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      /**
       * Set when the call must not run: its argument JSON could not be parsed, or was cut off (by the output token
       * limit or a stream that ended early; `arguments` then holds what arrived, for display). One clause that
       * follows "The call to NAME was not run:".
       */
      parseError?: string;
      /**
       * Set by a stream layer (engine/stream/wrappers) that found the call malformed (blank or over-long name, a
       * tool that is not offered): the call is not run, the model gets this text as an error result.
       */
      invalid?: string;
    }
  | { type: 'usage'; usage: Usage }
  | { type: 'done'; stopReason: Exclude<StopReason, 'error' | 'aborted'>; message: AssistantMessage }
  | { type: 'error'; error: unknown; message: AssistantMessage };

export type StreamFn = (req: StreamRequest) => AsyncIterable<ProviderEvent>;
