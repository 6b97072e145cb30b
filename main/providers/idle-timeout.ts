/**
 * Idle watchdog for provider streams. Neither SDK times out a response body, so a provider that stalls after the
 * headers would hang a run forever. The watchdog fires after `idleMs` without progress, calls `onIdle` (which
 * aborts the HTTP request) and rejects whatever is being awaited with an IdleTimeoutError, without relying on
 * the SDK to notice the abort. The caller's AbortSignal likewise rejects the pending wait at once.
 */
import { AbortError, IdleTimeoutError } from './errors.js';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class IdleWatchdog {
  private handle: unknown;
  private stopped = false;
  private idleError: IdleTimeoutError | undefined;
  private readonly waiters = new Set<(err: Error) => void>();

  constructor(
    private readonly idleMs: number,
    private readonly signal: AbortSignal,
    private readonly onIdle: (err: IdleTimeoutError) => void,
    private readonly timers: Timers = realTimers,
  ) {
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    this.touch();
  }

  /** The timeout error if the watchdog fired (it then stays fired). */
  get fired(): IdleTimeoutError | undefined {
    return this.idleError;
  }

  /** Progress: restart the countdown. */
  touch(): void {
    this.clear();
    if (this.stopped || this.idleError || !(this.idleMs > 0)) return;
    this.handle = this.timers.setTimeout(() => this.fire(), this.idleMs);
  }

  /** Stop counting (e.g. while the consumer handles an event); `touch` restarts. */
  pause(): void {
    this.clear();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
    this.signal.removeEventListener('abort', this.onAbort);
    this.waiters.clear();
  }

  /** Awaits `p`, but rejects as soon as the watchdog fires or the signal aborts. */
  race<T>(p: Promise<T>): Promise<T> {
    const early = this.failure();
    if (early) {
      p.catch(() => undefined);
      return Promise.reject(early);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter = (err: Error) => reject(err);
      this.waiters.add(waiter);
      p.then(
        (v) => {
          this.waiters.delete(waiter);
          resolve(v);
        },
        (e: unknown) => {
          this.waiters.delete(waiter);
          reject(e);
        },
      );
    });
  }

  /** Iterates `source`, racing every step; the countdown pauses while the consumer holds an item. */
  async *watch<T>(source: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
    const it = source[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        this.touch();
        const r = await this.race(it.next());
        this.pause();
        if (r.done) {
          finished = true;
          return;
        }
        yield r.value;
      }
    } finally {
      if (!finished) {
        // Do not await: a stalled source may never settle its return().
        void Promise.resolve()
          .then(() => it.return?.())
          .catch(() => undefined);
      }
    }
  }

  private failure(): Error | undefined {
    if (this.idleError) return this.idleError;
    if (this.signal.aborted) return new AbortError(undefined, { cause: this.signal.reason });
    return undefined;
  }

  private fire(): void {
    if (this.stopped || this.idleError) return;
    this.idleError = new IdleTimeoutError(this.idleMs);
    this.onIdle(this.idleError);
    this.rejectAll(this.idleError);
  }

  private readonly onAbort = (): void => {
    this.clear();
    if (this.idleError) return;
    this.rejectAll(new AbortError(undefined, { cause: this.signal.reason }));
  };

  private rejectAll(err: Error): void {
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w(err);
  }

  private clear(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
