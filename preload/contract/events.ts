/** D2 contract: the run events every transport carries — one `AgentEvent` per stream item, with its payload. */
import type { ApprovalData } from './approvals.js';
import type { CheckpointData } from './checkpoints.js';
import type { QueueData } from './queue.js';
import type { FailoverReasonDto, RunResult, UsageDto } from './runs.js';
import type { CommandNameDto } from './commands.js';
import type { BudgetData } from './usage.js';

export type StreamName = 'lifecycle' | 'assistant' | 'thinking' | 'tool' | 'compaction' | 'retry' | 'queue' | 'approval' | 'checkpoint' | 'usage' | 'budget';

/** Payloads per stream. */
export type LifecycleData =
  | {
      phase: 'start';
      startedAt: number;
      provider: string;
      model: string;
      demo?: boolean;
      /** E5: the model's usable context window is small (under 32 000 tokens); the run goes on. */
      warning?: string;
      /** The message was a command the gateway answered itself (no model call; the result carries its notice). */
      command?: CommandNameDto;
    }
  | { phase: 'end'; endedAt: number; result: RunResult }
  | { phase: 'error'; endedAt: number; error: string; result: RunResult };
export interface AssistantData {
  /** New text since the previous assistant event of this run (never repeats earlier text). */
  delta: string;
  /** Full visible text of the current assistant message so far. */
  text: string;
  /** Index of the model call within the run (0, 1, …): a new value starts a new assistant message. */
  turn?: number;
  /**
   * E15: a completed reply block (paragraph › newline › sentence breaks, fences kept whole). Sent with an empty
   * `delta` after the deltas it covers; the blocks of a message concatenate to its visible text.
   */
  block?: string;
  /** E16: an interim message the model posted with `send_message` (`delta` is its text, shown as its own paragraph). */
  interim?: true;
}
export interface ThinkingData {
  delta: string;
  text: string;
  turn?: number;
}
export type ToolData =
  | { phase: 'start'; toolCallId: string; name: string; args: Record<string, unknown> }
  | { phase: 'update'; toolCallId: string; name: string; partial: string }
  | { phase: 'end'; toolCallId: string; name: string; result: string; isError: boolean; durationMs: number };
/** Why a compaction ran: before a send (E10), after a provider overflow error, or asked for (/compact). */
export type CompactionReasonDto = 'preemptive' | 'overflow' | 'manual';
/** E14 `compaction` stream. A failed compaction ends with `error` set and tokensAfter = tokensBefore. */
export type CompactionData =
  | { phase: 'start'; reason?: CompactionReasonDto }
  | { phase: 'end'; tokensBefore: number; tokensAfter: number; reason?: CompactionReasonDto; error?: string };

/**
 * E7: one attempt failed and the outer loop decided what comes next ("rate-limited on anthropic:work, trying
 * anthropic:personal"). Whatever the failed model call had streamed (its `turn`) is discarded: a client drops that
 * turn's partial text, thinking and unfinished tool rows, so nothing is shown twice when the next attempt streams.
 */
export interface RetryData {
  /** 1-based number of the attempt that failed. */
  attempt: number;
  reason: FailoverReasonDto;
  /** One readable line (keys redacted). */
  message: string;
  provider: string;
  model: string;
  profileId: string | null;
  /** The turn index whose partial output is discarded (absent: nothing had streamed). */
  discardTurn?: number;
  /** When the failed profile's cooldown ends (epoch ms), if it entered one. */
  cooldownUntil?: number;
  next:
    | { action: 'rotate'; profileId: string }
    /** Wait (exponential backoff), then retry — on `profileId` when given. */
    | { action: 'backoff'; waitMs: number; profileId?: string }
    /** Wait as the server asked (retry-after), then retry — on `profileId` when given. */
    | { action: 'wait'; waitMs: number; profileId?: string }
    | { action: 'fallback'; provider: string; model: string }
    | { action: 'compact' }
    | { action: 'give_up' };
}

/**
 * E17 `usage` stream: one model call's tokens as billed — every call of the tool loop (a failed one with whatever it
 * reported), and every compaction summary (preemptive, after an overflow, `/compact`). `cost` in USD where the
 * model's price is known.
 */
export interface UsageData {
  kind: 'turn' | 'compaction';
  /** The run's turn index of a tool-loop call (absent for a compaction summary). */
  turn?: number;
  provider: string;
  model: string;
  profileId: string | null;
  usage: UsageDto;
  cost?: number;
}

export interface AgentEvent {
  type: 'event';
  runId: string;
  sessionKey: string;
  /** Gapless per run, starting at 0. */
  seq: number;
  stream: StreamName;
  data: LifecycleData | AssistantData | ThinkingData | ToolData | CompactionData | RetryData | QueueData | ApprovalData | CheckpointData | UsageData | BudgetData;
  ts: number;
}
