/**
 * Idle watchdog for provider streams. Neither SDK times out a response body, so a provider that stalls after the
 * headers would hang a run forever. The watchdog fires after `idleMs` without progress, calls `onIdle` (which
 * aborts the HTTP request) and rejects whatever is being awaited with an IdleTimeoutError, without relying on
 * the SDK to notice the abort. The caller's AbortSignal likewise rejects the pending wait at once.
 */
import { AbortError, IdleTimeoutError } from './errors.js';

import { nodeTimers as realTimers, type Timers } from '../engine/timers.js';

export { realTimers, type Timers };

export class IdleWatchdog {
  private handle: unknown;
  /** When the countdown ends (clock ms); Infinity while paused. Moving it needs no timer call (hot path). */
  private deadline = Infinity;
  private stopped = false;
  private idleError: IdleTimeoutError | undefined;
  private readonly waiters = new Set<(err: Error) => void>();
  private slot: ((err: Error) => void) | undefined;
  // The `step` in flight (see there).
  private stepResolve: ((r: unknown) => void) | undefined;
  private stepReject: ((err: unknown) => void) | undefined;
  private stepOnValue: ((v: never) => unknown) | undefined;
  private stepOnError: ((err: unknown) => unknown) | undefined;
  private readonly clock: () => number;

  constructor(
    private readonly idleMs: number,
    private readonly signal: AbortSignal,
    private readonly onIdle: (err: IdleTimeoutError) => void,
    private readonly timers: Timers = realTimers,
  ) {
    this.clock = timers.clock ? () => timers.clock!() : Date.now;
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    this.touch();
  }

  /** The timeout error if the watchdog fired (it then stays fired). */
  get fired(): IdleTimeoutError | undefined {
    return this.idleError;
  }

  /**
   * Progress: restart the countdown. Called for every streamed event, so it only moves the deadline; the one
   * armed timer re-arms itself for the time left when it wakes up early.
   */
  touch(): void {
    if (this.stopped || this.idleError || !(this.idleMs > 0)) return;
    this.deadline = this.clock() + this.idleMs;
    if (this.handle === undefined) this.arm(this.idleMs);
  }

  /** Stop counting (e.g. while the consumer handles an event); `touch` restarts. */
  pause(): void {
    this.deadline = Infinity;
  }

  stop(): void {
    this.stopped = true;
    this.clear();
    this.signal.removeEventListener('abort', this.onAbort);
    this.waiters.clear();
    this.slot = undefined;
  }

  /** Awaits `p`, but rejects as soon as the watchdog fires or the signal aborts. */
  race<T>(p: Promise<T>): Promise<T> {
    const early = this.failure();
    if (early) {
      p.catch(() => undefined);
      return Promise.reject(early);
    }
    return new Promise<T>((resolve, reject) => {
      // One wait at a time is the streaming case: a slot, not a Set, keeps the per-event cost down.
      const inSlot = this.slot === undefined;
      if (inSlot) this.slot = reject;
      else this.waiters.add(reject);
      const settled = () => {
        if (inSlot) {
          if (this.slot === reject) this.slot = undefined;
        } else this.waiters.delete(reject);
      };
      p.then(
        (v) => {
          settled();
          resolve(v);
        },
        (e: unknown) => {
          settled();
          reject(e);
        },
      );
    });
  }

  /**
   * One step of a stream iterated by hand: `p` (the source's next()) raced against the watchdog and the signal,
   * the countdown running while it waits and paused when it settles. Resolves with `onValue(value)`, or with
   * `onError(error)` when `p` rejects or the watchdog or the signal comes first (either may throw to reject).
   * For the streaming hot path: the handlers are made once per watchdog, so a step costs one promise of its own.
   * One step at a time; after a failure (fired, aborted) every later step fails at once, so a late settling of
   * an abandoned `p` finds no step to settle.
   */
  step<T, R>(p: Promise<T>, onValue: (v: T) => R | PromiseLike<R>, onError: (err: unknown) => R | PromiseLike<R>): Promise<R> {
    const early = this.failure();
    if (early) {
      p.catch(() => undefined);
      return new Promise<R>((resolve) => resolve(onError(early)));
    }
    this.touch();
    this.stepOnValue = onValue as (v: never) => unknown;
    this.stepOnError = onError;
    const out = new Promise<R>(this.startStep);
    if (this.slot === undefined) this.slot = this.stepFailed;
    else this.waiters.add(this.stepFailed);
    p.then(this.stepSettled, this.stepFailed);
    return out;
  }

  private readonly startStep = (resolve: (r: never) => void, reject: (err: unknown) => void): void => {
    this.stepResolve = resolve as (r: unknown) => void;
    this.stepReject = reject;
  };

  private clearStep(): void {
    this.stepResolve = this.stepReject = this.stepOnValue = this.stepOnError = undefined;
    if (this.slot === this.stepFailed) this.slot = undefined;
    else this.waiters.delete(this.stepFailed);
  }

  private readonly stepSettled = (value: unknown): void => {
    const resolve = this.stepResolve;
    if (!resolve) return;
    const reject = this.stepReject!;
    const onValue = this.stepOnValue!;
    this.clearStep();
    this.pause();
    try {
      resolve(onValue(value as never));
    } catch (err) {
      reject(err);
    }
  };

  private readonly stepFailed = (err: unknown): void => {
    const resolve = this.stepResolve;
    if (!resolve) return;
    const reject = this.stepReject!;
    const onError = this.stepOnError!;
    this.clearStep();
    try {
      resolve(onError(err));
    } catch (e) {
      reject(e);
    }
  };

  /**
   * Iterates `source`, racing every step; the countdown pauses while the consumer holds an item. A plain
   * iterator object rather than an async generator, and the race inlined with handlers made once per stream: it
   * runs once per streamed event, so each step costs one promise of its own and no new closures.
   */
  watch<T>(source: AsyncIterable<T>): AsyncIterable<T> {
    return {
      [Symbol.asyncIterator]: () => {
        const it = source[Symbol.asyncIterator]();
        let finished = false;
        // The step being waited for (at most one: for-await never calls next() before the last one settled).
        let resolveStep: ((r: IteratorResult<T, undefined>) => void) | undefined;
        let rejectStep: ((err: unknown) => void) | undefined;
        const end = (): Promise<IteratorResult<T, undefined>> => {
          if (!finished) {
            finished = true;
            // Do not await: a stalled source may never settle its return().
            void Promise.resolve()
              .then(() => it.return?.())
              .catch(() => undefined);
          }
          return Promise.resolve({ done: true, value: undefined });
        };
        const release = (): void => {
          resolveStep = undefined;
          rejectStep = undefined;
          if (this.slot === fail) this.slot = undefined;
          else this.waiters.delete(fail);
        };
        const onValue = (r: IteratorResult<T>): void => {
          const resolve = resolveStep;
          if (!resolve) return; // the step already failed (watchdog or abort)
          release();
          this.pause();
          if (r.done) finished = true;
          resolve(r.done ? { done: true, value: undefined } : r);
        };
        const fail = (err: unknown): void => {
          const reject = rejectStep;
          if (!reject) return;
          release();
          void end();
          reject(err);
        };
        const start = (resolve: (r: IteratorResult<T, undefined>) => void, reject: (err: unknown) => void): void => {
          resolveStep = resolve;
          rejectStep = reject;
          if (this.slot === undefined) this.slot = fail;
          else this.waiters.add(fail);
          it.next().then(onValue, fail);
        };
        return {
          next: (): Promise<IteratorResult<T, undefined>> => {
            if (finished) return Promise.resolve({ done: true, value: undefined });
            const early = this.failure();
            if (early) {
              void end();
              return Promise.reject(early);
            }
            this.touch();
            return new Promise(start);
          },
          return: end,
        };
      },
    };
  }

  private failure(): Error | undefined {
    if (this.idleError) return this.idleError;
    if (this.signal.aborted) return new AbortError(undefined, { cause: this.signal.reason });
    return undefined;
  }

  private arm(ms: number): void {
    this.handle = this.timers.setTimeout(this.wake, ms);
  }

  private readonly wake = (): void => {
    this.handle = undefined;
    if (this.stopped || this.idleError) return;
    const left = this.deadline === Infinity ? this.idleMs : this.deadline - this.clock();
    if (left > 0) this.arm(left);
    else this.fire();
  };

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
    const slot = this.slot;
    this.slot = undefined;
    slot?.(err);
    for (const w of ws) w(err);
  }

  private clear(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
