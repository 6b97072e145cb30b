/** D2 contract: busy sessions, lanes, steering and subagents (`queue.*`, `agent.steer`, `subagents.*`). */

export type QueueMode = 'followup' | 'collect' | 'steer' | 'interrupt';

/** E3/E4: a run accepted but not started yet (queue.list). */
export interface QueueEntryDto {
  runId: string;
  sessionKey: string;
  mode: QueueMode;
  lane: 'global' | 'subagent';
  /** Where it waits: its session's lane (behind the busy run) or a bounded lane. */
  stage: 'session' | 'global' | 'subagent';
  position: number;
  enqueuedAt: number;
  /** The first 200 characters of its message (collect: the merged text so far). */
  preview: string;
  /** collect: how many messages it holds. */
  merged?: number;
}

/** E3 steer request: where the message went. */
export type SteerResultDto =
  | { status: 'steered'; runId: string; intoRunId: string }
  | { status: 'queued'; runId: string }
  /** A subagent was steered: its run was stopped and `runId` now carries the new message. */
  | { status: 'restarted'; runId: string; replacedRunId: string }
  | { status: 'rate_limited'; retryAfterMs: number };

/** E20: one subagent (a child run in the subagent lane, its own session linked to the parent's). */
export interface SubagentDto {
  id: string;
  parentSessionKey: string;
  parentRunId: string;
  sessionKey: string;
  runId: string;
  task: string;
  status: 'running' | 'queued' | 'ok' | 'error' | 'timeout';
  startedAt: number;
  endedAt?: number;
  steers: number;
}

/** E3: what happened to a message that arrived while its session was busy, and lane waits over 2 s. */
export type QueueData =
  | { phase: 'queued'; mode: QueueMode; position: number }
  | { phase: 'waiting'; waitedMs: number; lane: 'session' | 'global' | 'subagent' }
  | { phase: 'merged'; intoRunId: string }
  | { phase: 'steered'; intoRunId: string }
  | { phase: 'removed' }
  | { phase: 'started' };
