/**
 * Runs registry (E4): every accepted run by runId — queued, running, merged into another run, or ended — with
 * the per-run controls the queue modes and the UI need: `queueMessage` (steer into the running tool loop),
 * `isStreaming`, `isCompacting`, abort one / all compacting / all, and `waitForRunEnd(sessionId, timeoutMs)`
 * (15 s default, 100 ms floor, resolves false on timeout). Finished runs are kept (bounded) so a late
 * `agent.wait` still gets the answer.
 */
import type { Attachment } from '../messages.js';
import type { QueueMode, RunResult, WaitResult } from '../../../preload/contract.js';
import type { Timers } from './agent-run.js';
import type { BoundedLane } from './lanes.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { SteerInbox } from '../attempt/steer.js';

export type RunState = 'queued' | 'running' | 'merged' | 'steered' | 'ended';

export interface RunRecord {
  runId: string;
  sessionKey: string;
  sessionId: string;
  acceptedAt: number;
  startedAt?: number;
  endedAt?: number;
  result?: RunResult;
  controller: AbortController;
  done: Promise<RunResult>;
  /** The text this run will send; collect mode appends to it until the run starts. */
  message?: string;
  /** X3: what the person attached to the message (merged ones too, in order). */
  attachments?: Attachment[];
  mode?: QueueMode;
  lane?: BoundedLane;
  state?: RunState;
  /** Merged (collect) or steered: the run whose result answers this one. */
  intoRunId?: string;
  emitter?: RunEmitter;
  /** Open while the run is in its attempt (steer target). */
  inbox?: SteerInbox;
  compacting?: boolean;
  /** collect: messages merged so far, time of the last one, and whether the run has read its message. */
  collected?: { count: number; lastAt: number; sealed: boolean };
  /** A subagent run: the parent's run and session. */
  parent?: { runId: string; sessionKey: string };
  /** The model the run was accepted for (results of runs that never started name it). */
  model?: { provider: string; id: string };
  /** Set while a steered message waits for its host run's end. */
  resolveSteered?: (result: RunResult) => void;
}

export type QueueMessageOutcome = { queued: true; runId: string } | { queued: false; reason: 'no_active_run' | 'not_streaming' | 'compacting' };

export const FINISHED_RUNS_KEPT = 1000;
export const WAIT_FOR_RUN_END_DEFAULT_MS = 15_000;
export const WAIT_FOR_RUN_END_FLOOR_MS = 100;

export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();

  constructor(private readonly timers: Timers) {}

  add(record: RunRecord): void {
    this.runs.set(record.runId, record);
    void record.done.then(
      () => this.prune(),
      () => this.prune(),
    );
  }

  get(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  /** Active (not yet ended) runs. */
  active(): RunRecord[] {
    return [...this.runs.values()].filter((r) => !r.result);
  }

  /** The run of `sessionId` that is executing now, if any. */
  running(sessionId: string): RunRecord | undefined {
    return this.active().find((r) => r.sessionId === sessionId && r.state === 'running');
  }

  isStreaming(sessionId: string): boolean {
    const run = this.running(sessionId);
    return !!run?.inbox?.isOpen && !run.compacting;
  }

  isCompacting(sessionId: string): boolean {
    return !!this.running(sessionId)?.compacting;
  }

  /** Steers `text` into the running tool loop of `sessionId` (E3 steer), or says why it cannot. */
  queueMessage(sessionId: string, text: string, fromRunId: string): QueueMessageOutcome {
    const run = this.running(sessionId);
    if (!run) return { queued: false, reason: 'no_active_run' };
    if (this.isCompacting(sessionId)) return { queued: false, reason: 'compacting' };
    if (!this.isStreaming(sessionId) || !run.inbox?.push({ text, fromRunId })) return { queued: false, reason: 'not_streaming' };
    return { queued: true, runId: run.runId };
  }

  abort(runId: string, reason?: unknown): boolean {
    const run = this.runs.get(runId);
    if (!run || run.result) return false;
    run.controller.abort(reason);
    return true;
  }

  /** Aborts the active runs of one session (queued ones included); returns how many. */
  abortSession(sessionId: string, reason?: unknown): number {
    return this.abortWhere((r) => r.sessionId === sessionId, reason);
  }

  abortCompacting(reason?: unknown): number {
    return this.abortWhere((r) => !!r.compacting, reason);
  }

  abortAll(reason?: unknown): number {
    return this.abortWhere(() => true, reason);
  }

  private abortWhere(pred: (r: RunRecord) => boolean, reason: unknown): number {
    let n = 0;
    for (const run of this.active()) if (pred(run) && this.abort(run.runId, reason)) n++;
    return n;
  }

  /** E2: waits for the run's end; waiting never stops the run. */
  async wait(run: RunRecord, timeoutMs: number): Promise<WaitResult> {
    const ended = await this.settleWithin(run.done, timeoutMs);
    if (!ended || !run.result) return { status: 'timeout', ...(run.startedAt ? { startedAt: run.startedAt } : {}) };
    return {
      status: run.result.status,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      ...(run.result.meta.error ? { error: run.result.meta.error } : {}),
    };
  }

  /** E4: resolves true when every run of the session has ended, false on timeout (default 15 s, floor 100 ms). */
  async waitForRunEnd(sessionId: string, timeoutMs = WAIT_FOR_RUN_END_DEFAULT_MS): Promise<boolean> {
    const pending = this.active().filter((r) => r.sessionId === sessionId).map((r) => r.done);
    if (pending.length === 0) return true;
    return this.settleWithin(Promise.allSettled(pending), Math.max(WAIT_FOR_RUN_END_FLOOR_MS, timeoutMs));
  }

  private settleWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const handle = this.timers.setTimeout(() => resolve(false), timeoutMs);
      const done = () => {
        this.timers.clearTimeout(handle);
        resolve(true);
      };
      promise.then(done, done);
    });
  }

  private prune(): void {
    const finished = [...this.runs.values()].filter((r) => r.result);
    for (const run of finished.slice(0, Math.max(0, finished.length - FINISHED_RUNS_KEPT))) this.runs.delete(run.runId);
  }
}
