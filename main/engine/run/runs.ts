/**
 * Registry of accepted runs (E4, first cut): state per runId for `agent.wait` / `agent.result`, abort, and
 * `waitForRunEnd`. Finished runs are kept (bounded) so a late `agent.wait` still gets the answer.
 */
import type { RunResult, WaitResult } from '../../../preload/contract.js';
import type { Timers } from './agent-run.js';

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
}

export const FINISHED_RUNS_KEPT = 1000;

export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();

  constructor(private readonly timers: Timers) {}

  add(record: RunRecord): void {
    this.runs.set(record.runId, record);
    void record.done.then(() => this.prune());
  }

  get(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  /** Active (not yet ended) runs. */
  active(): RunRecord[] {
    return [...this.runs.values()].filter((r) => !r.result);
  }

  abort(runId: string, reason?: unknown): boolean {
    const run = this.runs.get(runId);
    if (!run || run.result) return false;
    run.controller.abort(reason);
    return true;
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

  /** E4: resolves true when every run of the session has ended, false on timeout. */
  async waitForRunEnd(sessionId: string, timeoutMs: number): Promise<boolean> {
    const pending = this.active().filter((r) => r.sessionId === sessionId).map((r) => r.done);
    if (pending.length === 0) return true;
    return this.settleWithin(Promise.all(pending), timeoutMs);
  }

  private settleWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const handle = this.timers.setTimeout(() => resolve(false), timeoutMs);
      promise.then(
        () => {
          this.timers.clearTimeout(handle);
          resolve(true);
        },
        () => {
          this.timers.clearTimeout(handle);
          resolve(true);
        },
      );
    });
  }

  private prune(): void {
    const finished = [...this.runs.values()].filter((r) => r.result);
    for (const run of finished.slice(0, Math.max(0, finished.length - FINISHED_RUNS_KEPT))) this.runs.delete(run.runId);
  }
}
