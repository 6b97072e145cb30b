import type { AttachmentRef } from './attachments.js';
/** D2 contract: starting a run, waiting for it and its result (`agent`, `agent.wait`, `agent.result`). */
import type { QueueMode } from './queue.js';
import type { CommandNameDto } from './commands.js';

export type ThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high';
export type RunStatus = 'ok' | 'error' | 'timeout';

export interface UsageDto {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** E17: billed tokens — every model call summed (compaction included); `cost` in USD only when every call was priced. */
export interface BillingDto extends UsageDto {
  /** Model calls counted (absent in totals kept before calls were counted). */
  calls?: number;
  cost?: number;
}

export interface AgentParams {
  message: string;
  sessionKey?: string;
  model?: string; // "provider/model"
  thinking?: ThinkingLevel;
  timeoutSeconds?: number;
  idempotencyKey?: string;
  /** E3: what happens when the session is busy (default: config agent.queueMode). */
  queueMode?: QueueMode;
  /** E9: extra system prompt text for this run (after the chat's own custom instructions). */
  extraSystemPrompt?: string;
  /** E16/E21: reasoning and tool summaries in the payloads for this run (default: the chat's /verbose, else agent.verbose). */
  verbose?: boolean;
  /**
   * E9: the folder the run's tools work in. With the sandbox on only the workspace itself is allowed (anything else
   * is a hard error); with it off, a folder inside the workspace.
   */
  cwd?: string;
  /** X3: images and text files attached to the message (ids from `attachments.add` / `attachments.mention`). */
  attachments?: AttachmentRef[];
}

export interface AgentAccepted {
  runId: string;
  sessionKey: string;
  sessionId: string;
  acceptedAt: number;
}

export interface WaitParams {
  runId: string;
  timeoutMs?: number;
}

export interface WaitResult {
  status: RunStatus;
  startedAt?: number;
  endedAt?: number;
  error?: string;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  payloads: { text: string; isError?: boolean }[];
  usage: UsageDto;
  meta: {
    provider: string;
    model: string;
    profileId: string | null;
    attempts: number;
    compactions: number;
    error?: string;
    /** The message was a command the gateway answered itself (E22): the payload is its notice. */
    command?: CommandNameDto;
    /**
     * E17: what this run was billed — every model call summed, compaction summaries included (`usage` above is the
     * context view: the last call's prompt plus the output).
     */
    usage?: BillingDto;
    /** E17: tokens the conversation takes after this run (the last call's prompt and reply, or after a compaction). */
    context?: number;
  };
}

/** E8 reasons a provider call failed (the engine's classification). */
export type FailoverReasonDto =
  | 'rate_limit'
  | 'overloaded'
  | 'billing'
  | 'auth'
  | 'timeout'
  | 'context_overflow'
  | 'format'
  | 'model_not_found'
  | 'server_error'
  | 'aborted'
  | 'unknown';
