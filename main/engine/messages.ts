/**
 * The engine's provider-neutral message model. Transcripts persist these shapes (one per JSONL line),
 * providers convert them to and from their wire formats, and the UI renders them.
 */

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
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantBlock[];
  provider: string;
  model: string;
  api: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
}

/** An image given to the model (base64), e.g. from an MCP tool result. */
export interface ImageData {
  type: 'image';
  mimeType: string;
  data: string;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
  timestamp: number;
  /** Images the tool returned (`content` names them too, for models that are given no images). */
  images?: ImageData[];
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export const assistantText = (m: AssistantMessage): string =>
  m.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');

export const toolCallsOf = (m: AssistantMessage): ToolCallBlock[] =>
  m.content.filter((b): b is ToolCallBlock => b.type === 'toolCall');
