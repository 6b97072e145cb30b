/**
 * Command lanes (E3, first cut: `followup` mode): every run is queued in its session lane (strictly serial per
 * session) and then in the global lane (bounded concurrency, default 4). A failing task never wedges a lane.
 */
import { KeyedMutex } from '../../sessions/write-lock.js';

export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  }

  get activeCount(): number {
    return this.active;
  }

  get queuedCount(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export class Lanes {
  private readonly global: Semaphore;
  /** The session lanes: the same keyed serialisation as the transcript write lock. */
  private readonly sessions = new KeyedMutex();

  constructor(maxConcurrent = 4) {
    this.global = new Semaphore(maxConcurrent);
  }

  /** Runs `task` after every earlier task of the same session, inside a global slot. */
  run<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    return this.sessions.run(sessionKey, () => this.global.run(task));
  }

  /** True while the session has a queued or running task. */
  isBusy(sessionKey: string): boolean {
    return this.sessions.isLocked(sessionKey);
  }

  get activeCount(): number {
    return this.global.activeCount;
  }
}
