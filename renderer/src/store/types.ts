/** View model of the chat: what the components render. */

export type ToolStatus = 'running' | 'ok' | 'error';

export interface ToolCallView {
  id: string;
  name: string;
  args: Record<string, unknown>;
  status: ToolStatus;
  /** Live partial output (tool `update` events). */
  partial: string;
  result?: string;
  durationMs?: number;
}

/** Text and tool calls in the order they happened. */
export type TurnPart = { kind: 'text'; text: string } | { kind: 'tool'; tool: ToolCallView };

export type TurnStatus = 'running' | 'done' | 'error';

export interface UserTurn {
  kind: 'user';
  id: string;
  text: string;
  ts: number;
}

export interface AssistantTurn {
  kind: 'assistant';
  id: string;
  runId?: string;
  parts: TurnPart[];
  thinking: string;
  status: TurnStatus;
  error?: string;
  model?: string;
  demo: boolean;
  /** Highest event seq applied (duplicates and replays are ignored). */
  lastSeq: number;
  startedAt?: number;
  endedAt?: number;
}

export type Turn = UserTurn | AssistantTurn;
