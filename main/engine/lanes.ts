/**
 * Command lanes (E3, first cut: `followup` mode): every run is queued in its session lane (strictly serial per
 * session) and then in the global lane (bounded concurrency, default 4). A failing task never wedges a lane.
 */
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
  private readonly sessionTails = new Map<string, Promise<unknown>>();

  constructor(maxConcurrent = 4) {
    this.global = new Semaphore(maxConcurrent);
  }

  /** Runs `task` after every earlier task of the same session, inside a global slot. */
  run<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    const previous = this.sessionTails.get(sessionKey) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.global.run(task));
    const tail = next.catch(() => undefined);
    this.sessionTails.set(sessionKey, tail);
    void tail.then(() => {
      if (this.sessionTails.get(sessionKey) === tail) this.sessionTails.delete(sessionKey);
    });
    return next;
  }

  /** True while the session has a queued or running task. */
  isBusy(sessionKey: string): boolean {
    return this.sessionTails.has(sessionKey);
  }

  get activeCount(): number {
    return this.global.activeCount;
  }
}
