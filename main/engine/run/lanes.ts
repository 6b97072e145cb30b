/**
 * Command lanes (E3): every run waits first in its session lane (strictly serial per session, in this process),
 * then for the session's cross-process lock (other processes sharing the home folder), then in a bounded lane —
 * `global` (agent.maxConcurrent, default 4) for user runs, `subagent` (default 8) for child runs, so a parent that
 * holds a global slot while its subagent runs can never deadlock the global lane.
 *
 * Queued entries are real queue entries: they can be listed and removed, and aborting a queued entry's signal
 * removes it — its task never starts. A wait longer than `warnAfterMs` (2 s) is reported once through `onWait`.
 * A failing task never wedges a lane: slots are released in `finally`.
 */
import type { Timers } from './agent-run.js';

export type BoundedLane = 'global' | 'subagent';
export type LaneStage = 'session' | BoundedLane;

export const LANE_WARN_AFTER_MS = 2000;
export const SUBAGENT_LANE_DEFAULT = 8;

/** The queued entry was removed (queue.remove, abort while queued, shutdown) before it started. */
export class LaneEntryRemovedError extends Error {
  override name = 'LaneEntryRemovedError';
}

interface Waiter {
  id: string;
  grant: () => void;
  refuse: (err: Error) => void;
}

/** A FIFO lane with bounded concurrency whose waiting entries can be removed. */
export class Lane {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  }

  get queuedIds(): string[] {
    return this.waiting.map((w) => w.id);
  }

  /** Resolves when a slot is granted (call `release` once afterwards). `front` jumps the queue (interrupt). */
  acquire(id: string, front = false): Promise<void> {
    if (this.active < this.limit && this.waiting.length === 0) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        id,
        grant: () => {
          this.active++;
          resolve();
        },
        refuse: reject,
      };
      if (front) this.waiting.unshift(waiter);
      else this.waiting.push(waiter);
    });
  }

  release(): void {
    this.active--;
    if (this.active < this.limit) this.waiting.shift()?.grant();
  }

  /** Removes a waiting entry; its `acquire` rejects with `err`. False when it is not waiting here. */
  remove(id: string, err: Error): boolean {
    const i = this.waiting.findIndex((w) => w.id === id);
    if (i < 0) return false;
    const [waiter] = this.waiting.splice(i, 1);
    waiter!.refuse(err);
    return true;
  }

  get idle(): boolean {
    return this.active === 0 && this.waiting.length === 0;
  }
}

export interface QueuedEntry {
  id: string;
  sessionKey: string;
  lane: BoundedLane;
  /** Where the entry waits now. */
  stage: LaneStage;
  /** 0-based position in that stage's queue. */
  position: number;
  enqueuedAt: number;
}

export interface LaneTaskOptions {
  /** Entry id (the runId). */
  id: string;
  lane?: BoundedLane;
  /** Aborting while queued removes the entry (the task never starts); after the start the task owns the signal. */
  signal?: AbortSignal;
  /** Jump the session queue (interrupt mode). */
  front?: boolean;
  /** Called once when the entry has waited `warnAfterMs` and still has not started. */
  onWait?: (info: { waitedMs: number; lane: LaneStage }) => void;
  /** While the task runs: another process asked (through the session lock) for the session's runs to stop. */
  onStopRequest?: () => void;
}

/**
 * Cross-process session lock: resolves with its release function (see main/sessions/session-lock.ts); `onStop` is
 * called when another process asks the holder to stop (`/stop`).
 */
export type SessionLockFn = (sessionKey: string, signal: AbortSignal | undefined, onStop?: () => void) => Promise<() => Promise<void>>;

export interface LanesOptions {
  maxConcurrent?: number;
  subagentConcurrent?: number;
  timers?: Timers;
  now?: () => number;
  warnAfterMs?: number;
  sessionLock?: SessionLockFn;
}

interface Tracked {
  id: string;
  sessionKey: string;
  lane: BoundedLane;
  stage: LaneStage | 'running';
  enqueuedAt: number;
  removedWith?: Error;
  /** Aborted by `remove`, so a wait for the cross-process lock stops too. */
  removal: AbortController;
}

export class Lanes {
  private readonly bounded: Record<BoundedLane, Lane>;
  private readonly sessions = new Map<string, Lane>();
  private readonly entries = new Map<string, Tracked>();
  private readonly timers: Timers | undefined;
  private readonly now: () => number;
  private readonly warnAfterMs: number;
  private readonly sessionLock: SessionLockFn | undefined;

  constructor(opts: LanesOptions | number = {}) {
    const o: LanesOptions = typeof opts === 'number' ? { maxConcurrent: opts } : opts;
    this.bounded = { global: new Lane(o.maxConcurrent ?? 4), subagent: new Lane(o.subagentConcurrent ?? SUBAGENT_LANE_DEFAULT) };
    this.timers = o.timers;
    this.now = o.now ?? Date.now;
    this.warnAfterMs = o.warnAfterMs ?? LANE_WARN_AFTER_MS;
    this.sessionLock = o.sessionLock;
  }

  /** Runs `task` after every earlier task of the same session, inside a slot of its bounded lane. */
  async run<T>(sessionKey: string, task: () => Promise<T>, opts: LaneTaskOptions = { id: randomId() }): Promise<T> {
    const laneName = opts.lane ?? 'global';
    const tracked: Tracked = {
      id: opts.id,
      sessionKey,
      lane: laneName,
      stage: 'session',
      enqueuedAt: this.now(),
      removal: new AbortController(),
    };
    if (this.entries.has(opts.id)) throw new Error(`lane entry ${opts.id} is already queued`);
    this.entries.set(opts.id, tracked);
    const session = this.sessionLane(sessionKey);
    const bounded = this.bounded[laneName];
    let warnTimer: unknown;
    if (opts.onWait && this.timers) {
      warnTimer = this.timers.setTimeout(() => {
        if (tracked.stage !== 'running' && !tracked.removedWith) {
          opts.onWait!({ waitedMs: this.now() - tracked.enqueuedAt, lane: tracked.stage });
        }
      }, this.warnAfterMs);
    }
    const onAbort = () => this.remove(opts.id, abortReason(opts.signal));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let holdsSession = false;
    let holdsBounded = false;
    let releaseLock: (() => Promise<void>) | undefined;
    try {
      if (opts.signal?.aborted) throw abortReason(opts.signal);
      await session.acquire(opts.id, opts.front);
      holdsSession = true;
      this.check(tracked);
      if (this.sessionLock) {
        releaseLock = await this.sessionLock(sessionKey, tracked.removal.signal, opts.onStopRequest);
        this.check(tracked);
      }
      tracked.stage = laneName;
      await bounded.acquire(opts.id);
      holdsBounded = true;
      this.check(tracked);
      tracked.stage = 'running';
      if (warnTimer !== undefined) this.timers!.clearTimeout(warnTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      return await task();
    } finally {
      if (warnTimer !== undefined) this.timers!.clearTimeout(warnTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      this.entries.delete(opts.id);
      if (holdsBounded) bounded.release();
      if (releaseLock) await releaseLock().catch(() => undefined);
      if (holdsSession) session.release();
      if (session.idle) this.sessions.delete(sessionKey);
    }
  }

  /**
   * Removes a queued entry: its `run` rejects with `err` and its task never starts. An entry that is between two
   * stages (e.g. waiting for the cross-process lock) is flagged and rejects at its next step. False when the entry
   * is unknown or already running.
   */
  remove(id: string, err: Error = new LaneEntryRemovedError('The queued run was removed.')): boolean {
    const tracked = this.entries.get(id);
    if (!tracked || tracked.stage === 'running' || tracked.removedWith) return false;
    tracked.removedWith = err;
    tracked.removal.abort(err);
    if (tracked.stage === 'session') this.sessions.get(tracked.sessionKey)?.remove(id, err);
    else this.bounded[tracked.stage].remove(id, err);
    return true;
  }

  /** Queued (not yet running) entries, oldest first. */
  list(sessionKey?: string): QueuedEntry[] {
    const out: QueuedEntry[] = [];
    for (const t of this.entries.values()) {
      if (t.stage === 'running' || t.removedWith) continue;
      if (sessionKey !== undefined && t.sessionKey !== sessionKey) continue;
      const queue = t.stage === 'session' ? this.sessions.get(t.sessionKey)?.queuedIds ?? [] : this.bounded[t.stage].queuedIds;
      out.push({ id: t.id, sessionKey: t.sessionKey, lane: t.lane, stage: t.stage, position: Math.max(0, queue.indexOf(t.id)), enqueuedAt: t.enqueuedAt });
    }
    return out.sort((a, b) => a.enqueuedAt - b.enqueuedAt);
  }

  /** True while the session has a queued or running task in this process. */
  isBusy(sessionKey: string): boolean {
    return this.sessions.has(sessionKey);
  }

  private sessionLane(key: string): Lane {
    let lane = this.sessions.get(key);
    if (!lane) this.sessions.set(key, (lane = new Lane(1)));
    return lane;
  }

  private check(tracked: Tracked): void {
    if (tracked.removedWith) throw tracked.removedWith;
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new LaneEntryRemovedError('The queued run was stopped before it started.');
}

let counter = 0;
const randomId = () => `lane-${++counter}`;
