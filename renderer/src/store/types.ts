/** View model of the chat: what the components render. */
import type { AttachmentDto, CompactionData, QueueMode, RetryData, UsageDto } from '../../../preload/contract.js';

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

/**
 * One row of a run, in the order it happened. `turn` is the model-call index the row came from (a retry's
 * `discardTurn` drops that call's rows); history rows carry -1 (never discarded).
 */
export type TurnPart =
  | { kind: 'thinking'; text: string; turn: number }
  | { kind: 'text'; text: string; turn: number }
  | { kind: 'tool'; tool: ToolCallView; turn: number }
  | { kind: 'retry'; retry: RetryData }
  | { kind: 'compaction'; phase: CompactionData['phase']; tokensBefore?: number; tokensAfter?: number; error?: string };

export type TurnStatus = 'queued' | 'running' | 'done' | 'error' | 'stopped' | 'removed' | 'merged';

export interface UserTurn {
  kind: 'user';
  id: string;
  text: string;
  ts: number;
  /** Set while the request has not reached the gateway yet (e.g. disconnected); it is re-sent with the same key. */
  pending?: { idempotencyKey: string };
  /** The run this message started (once accepted). */
  runId?: string;
  /** X3: what the message carried (images, files, @-mentions). */
  attachments?: AttachmentDto[];
}

export interface AssistantTurn {
  kind: 'assistant';
  id: string;
  runId?: string;
  parts: TurnPart[];
  status: TurnStatus;
  error?: string;
  model?: string;
  demo: boolean;
  /** Highest event seq applied (duplicates and replays are ignored). */
  lastSeq: number;
  /** Model-call index of the latest assistant/thinking event (tool rows belong to it). */
  callTurn: number;
  startedAt?: number;
  endedAt?: number;
  /** Usage of the finished run (context from its last call, output summed). */
  usage?: UsageDto;
  /** What the run was billed in USD (every model call, as the ledger counts it); absent when a call was unpriced. */
  cost?: number;
  /** provider/model that really answered (after fallbacks). */
  answeredBy?: string;
  /** While the message waits behind a busy session. */
  queue?: { mode: QueueMode; position: number };
  /** E5: the run started with a warning (e.g. a small context window). */
  warning?: string;
  /** Slow lane: how long it has waited so far. */
  waitedMs?: number;
}

export type Turn = UserTurn | AssistantTurn;
