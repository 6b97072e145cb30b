/**
 * The engine's provider-neutral message model. Transcripts persist these shapes (one per JSONL line),
 * providers convert them to and from their wire formats, and the UI renders them.
 */

import type { RetryData } from '../../preload/contract.js';

export interface Usage {
  /** Prompt tokens of the call that are neither cache reads nor cache writes. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + cacheRead + cacheWrite + output (for one call), or the run total as defined in E17. */
  total: number;
}

export const emptyUsage = (): Usage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });

export interface TextBlock {
  type: 'text';
  text: string;
  /** OpenAI Responses output item id (`msg_…`), sent back with the text. */
  itemId?: string;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** Anthropic signature; must be sent back unmodified. */
  signature?: string;
  /** Opaque redacted_thinking payload (Anthropic); `thinking` is empty then. */
  redacted?: string;
  /** OpenAI Responses reasoning item id (`rs_…`); with `encrypted` it is carried into the next request. */
  itemId?: string;
  /** OpenAI Responses `encrypted_content` of the reasoning item; must be sent back unmodified. */
  encrypted?: string;
}

export interface ToolCallBlock {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** OpenAI Responses function_call item id (`fc_…`); `id` is its call_id. */
  itemId?: string;
}

export type AssistantBlock = TextBlock | ThinkingBlock | ToolCallBlock;

/** Why a model call ended. `error` and `aborted` mark a failed call (E11: its tool calls get no results). */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

export interface UserMessage {
  role: 'user';
  content: string;
  timestamp: number;
  /** Injected into a running tool loop by steering (E3 `steer`): it follows tool results by design. */
  steered?: boolean;
  /**
   * E19 before_prompt_build `prependContext`: text for this turn, sent before `content` (prompt-build.ts). Kept apart
   * so the chat shows what the person typed.
   */
  context?: string;
  /** X3: images and text files the person attached (references to the attachments store; resolved at send time). */
  attachments?: Attachment[];
}

/**
 * A failed attempt the run went on from (E7: a key switch, a wait, a fallback), as the live retry line showed it;
 * kept on the next message the run wrote, so a reloaded reply shows the same line.
 */
export type RetryNote = Omit<RetryData, 'discardTurn'>;

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantBlock[];
  provider: string;
  model: string;
  api: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  /** A failed call: the key profile it used, so its error line names the key after a reload too (issue 18 item 9). */
  profileId?: string;
  timestamp: number;
  /** The retries announced since the run's previous message (shown above this one after a reload). */
  retries?: RetryNote[];
}

/**
 * An image for the model — the ONE shape of every image in a conversation: attached by the person (X3), returned by
 * the read tool or an MCP tool (X1). In memory a fresh image carries its bytes (`data`, base64); the transcript
 * carries `sha256` instead (the bytes are stored once in the data folder's attachments store, sessions/attachments.ts)
 * and the bytes are put back — downscaled to the provider's limits — only for the request (sessions/attachment-send.ts).
 */
export interface ImageData {
  type: 'image';
  mimeType: string;
  /** base64 of the bytes: in memory and in requests; absent on a transcript line that names `sha256`. */
  data?: string;
  /** sha256 (hex) of the original bytes in the attachments store. */
  sha256?: string;
  /** File name shown to the person (and named to the model). */
  name?: string;
  /** Size of the original in bytes, and its pixel size where known. */
  bytes?: number;
  width?: number;
  height?: number;
}

/** X3: a text file attached to a message (or a workspace path mentioned with `@`): sent as quoted text with its name. */
export interface FileData {
  type: 'file';
  name: string;
  mimeType: string;
  /** sha256 (hex) of the bytes in the attachments store. */
  sha256: string;
  bytes: number;
  /** The text as sent (set only in requests, never written to the transcript). */
  text?: string;
  /** An `@`-mention: a workspace file or a folder's listing. */
  mention?: 'file' | 'folder';
}

export type Attachment = ImageData | FileData;

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
  timestamp: number;
  /** Images the tool returned (`content` names them too, for models that are given no images). */
  images?: ImageData[];
  /** How long the tool ran (shown again after a reload, issue 18 item 3; never sent to a model). */
  durationMs?: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export const assistantText = (m: AssistantMessage): string =>
  m.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');

export const toolCallsOf = (m: AssistantMessage): ToolCallBlock[] =>
  m.content.filter((b): b is ToolCallBlock => b.type === 'toolCall');
