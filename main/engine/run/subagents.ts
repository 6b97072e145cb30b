/**
 * Subagents (E20): a child run in the subagent lane, in its own session linked to the parent's, whose final reply
 * returns to the parent as the `spawn_subagent` tool result. Subagents can be listed, aborted and steered.
 *
 * Steer = mark → abort → clear its queue → wait for the run to end (≤ 5 s) → send the new message in the subagent
 * lane → replace the registry entry. The parent's tool call follows the replacement, so it returns the steered
 * run's reply. At most one steer per target every 2 s; a faster one gets a rate-limited answer with the wait left.
 * Clock and timers are injected.
 */
import { abortError } from '../abort.js';
import { randomUUID } from 'node:crypto';
import type { RunResult, SteerResultDto, SubagentDto } from '../../../preload/contract.js';
import type { RunRecord, RunRegistry } from './runs.js';

export const STEER_WAIT_MS = 5000;
export const STEER_MIN_INTERVAL_MS = 2000;
/** Ended subagents kept for `list`. */
export const SUBAGENTS_KEPT = 100;

export interface SpawnRequest {
  sessionKey: string;
  message: string;
  parent: { runId: string; sessionKey: string };
}

export interface SubagentsDeps {
  runs: RunRegistry;
  /** Starts a child run in the subagent lane. */
  start: (req: SpawnRequest) => Promise<RunRecord>;
  /** Removes the child's queued runs (steer clears its queue); returns how many. */
  clearQueue: (sessionKey: string) => number;
  now: () => number;
  newId?: () => string;
  steerWaitMs?: number;
  steerMinIntervalMs?: number;
  /** Called whenever the list changes (a subagent starts, ends, is steered). */
  onChange?: () => void;
}

interface Entry {
  id: string;
  parent: { runId: string; sessionKey: string };
  sessionKey: string;
  task: string;
  record: RunRecord;
  startedAt: number;
  steers: number;
  lastSteerAt?: number;
  /** Set from the steer's mark until its replacement run exists. */
  replacing?: Promise<void>;
}

export class SubagentNotFoundError extends Error {
  override name = 'SubagentNotFoundError';
}

const stop = abortError;

export class Subagents {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly d: SubagentsDeps) {}

  /** Runs a subagent to its end (following steers); the parent's abort stops it. */
  async spawn(parent: { runId: string; sessionKey: string }, task: string, signal?: AbortSignal): Promise<RunResult> {
    const id = (this.d.newId ?? (() => randomUUID().slice(0, 8)))();
    const sessionKey = `subagent/${id}`;
    const record = await this.d.start({ sessionKey, message: task, parent });
    const entry: Entry = { id, parent, sessionKey, task, record, startedAt: this.d.now(), steers: 0 };
    this.entries.set(id, entry);
    this.prune();
    this.d.onChange?.();
    const onAbort = () => this.d.runs.abort(entry.record.runId, stop('The parent run was stopped.'));
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      for (;;) {
        const awaited = entry.record;
        const result = await awaited.done;
        if (entry.replacing) await entry.replacing;
        if (entry.record === awaited || signal?.aborted) return result;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.d.onChange?.();
    }
  }

  /** True while some subagent has not ended. */
  get hasActive(): boolean {
    return [...this.entries.values()].some((e) => !e.record.result || e.replacing);
  }

  /** Keeps every active subagent and the most recent ended ones. */
  private prune(): void {
    const ended = [...this.entries.values()].filter((e) => e.record.result && !e.replacing);
    for (const e of ended.slice(0, Math.max(0, ended.length - SUBAGENTS_KEPT))) this.entries.delete(e.id);
  }

  list(parentSessionKey?: string): SubagentDto[] {
    return [...this.entries.values()]
      .filter((e) => parentSessionKey === undefined || e.parent.sessionKey === parentSessionKey)
      .map((e) => ({
        id: e.id,
        parentSessionKey: e.parent.sessionKey,
        parentRunId: e.parent.runId,
        sessionKey: e.sessionKey,
        runId: e.record.runId,
        task: e.task,
        status: e.record.result?.status ?? (e.record.state === 'running' ? 'running' : 'queued'),
        startedAt: e.startedAt,
        ...(e.record.endedAt !== undefined ? { endedAt: e.record.endedAt } : {}),
        steers: e.steers,
      }));
  }

  abort(id: string): boolean {
    const e = this.entries.get(id);
    if (!e) return false;
    this.d.clearQueue(e.sessionKey);
    return this.d.runs.abort(e.record.runId, stop('The subagent was stopped.'));
  }

  async steer(id: string, message: string): Promise<SteerResultDto> {
    const e = this.entries.get(id);
    if (!e) throw new SubagentNotFoundError(`No subagent with id ${id}.`);
    const t = this.d.now();
    const minInterval = this.d.steerMinIntervalMs ?? STEER_MIN_INTERVAL_MS;
    if (e.lastSteerAt !== undefined && t - e.lastSteerAt < minInterval) {
      return { status: 'rate_limited', retryAfterMs: minInterval - (t - e.lastSteerAt) };
    }
    e.lastSteerAt = t;
    let done!: () => void;
    e.replacing = new Promise<void>((r) => (done = r)); // mark
    const old = e.record;
    try {
      this.d.runs.abort(old.runId, stop('The subagent was steered to a new message.')); // abort
      old.inbox?.clear();
      this.d.clearQueue(e.sessionKey); // clear its queue
      await this.d.runs.waitForRunEnd(old.sessionId, this.d.steerWaitMs ?? STEER_WAIT_MS); // wait ≤ 5 s
      const next = await this.d.start({ sessionKey: e.sessionKey, message, parent: e.parent }); // send
      e.record = next; // replace
      e.steers++;
      this.d.onChange?.();
      return { status: 'restarted', runId: next.runId, replacedRunId: old.runId };
    } finally {
      delete e.replacing;
      done();
    }
  }
}
