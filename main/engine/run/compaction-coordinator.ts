/**
 * E18 compaction coordination for one run: a compaction in flight plus a counter of overflow retries that wait
 * for one, behind ONE shared promise.
 *
 * - `run(fn)` marks a compaction in flight for its duration; `unsubscribe()` aborts it (its signal fires).
 * - `beginRetry()` / `resolveRetry()` count an overflow retry that depends on a compaction; when the count is back
 *   at 0 and nothing is in flight, the shared promise resolves.
 * - `wait()` resolves at once when nothing is pending — after re-checking in a microtask, so a compaction that
 *   starts in the same tick is still waited for — else it waits for the shared promise.
 * - `unsubscribe()` (the run ended or was torn down) rejects every waiter with an AbortError — never a success a
 *   caller could mistake for a finished compaction — and any later `wait()` rejects the same way.
 */

import { abortError } from '../abort.js';

export class CompactionCoordinator {
  #pending = 0;
  #inFlight = 0;
  #unsubscribed = false;
  #promise: Promise<void> | undefined;
  #resolve: (() => void) | undefined;
  #reject: ((err: Error) => void) | undefined;
  readonly #controllers = new Set<AbortController>();

  get isCompacting(): boolean {
    return this.#inFlight > 0 || this.#pending > 0;
  }

  get pendingRetries(): number {
    return this.#pending;
  }

  #ensurePromise(): Promise<void> {
    if (!this.#promise) {
      this.#promise = new Promise<void>((resolve, reject) => {
        this.#resolve = resolve;
        this.#reject = reject;
      });
      // No waiter yet: an AbortError on teardown must not surface as an unhandled rejection.
      this.#promise.catch(() => {});
    }
    return this.#promise;
  }

  #settleIfIdle(): void {
    if (this.#pending === 0 && this.#inFlight === 0 && this.#promise) {
      this.#resolve?.();
      this.#promise = undefined;
      this.#resolve = this.#reject = undefined;
    }
  }

  /** Runs one compaction; `signal` fires when the parent aborts or the coordinator is unsubscribed. */
  async run<T>(parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#unsubscribed) throw abortError('Unsubscribed during compaction');
    const controller = new AbortController();
    const onAbort = () => controller.abort(parent.reason);
    if (parent.aborted) onAbort();
    else parent.addEventListener('abort', onAbort, { once: true });
    this.#controllers.add(controller);
    this.#inFlight++;
    this.#ensurePromise();
    try {
      return await fn(controller.signal);
    } finally {
      parent.removeEventListener('abort', onAbort);
      this.#controllers.delete(controller);
      this.#inFlight--;
      this.#settleIfIdle();
    }
  }

  /** The run ended (the seed's agent end): retries still counted will never be resolved by an attempt. */
  endRun(): void {
    while (this.#pending > 0) this.resolveRetry();
  }

  beginRetry(): void {
    if (this.#unsubscribed) return;
    this.#pending++;
    this.#ensurePromise();
  }

  resolveRetry(): void {
    if (this.#pending <= 0) return;
    this.#pending--;
    this.#settleIfIdle();
  }

  wait(): Promise<void> {
    if (this.#unsubscribed) return Promise.reject(abortError('Unsubscribed during compaction wait'));
    if (this.isCompacting) return this.#ensurePromise();
    return new Promise<void>((resolve, reject) => {
      queueMicrotask(() => {
        if (this.#unsubscribed) reject(abortError('Unsubscribed during compaction wait'));
        else if (this.isCompacting) this.#ensurePromise().then(resolve, reject);
        else resolve();
      });
    });
  }

  unsubscribe(): void {
    if (this.#unsubscribed) return;
    this.#unsubscribed = true;
    const err = abortError('Unsubscribed during compaction');
    this.#reject?.(err);
    this.#promise = undefined;
    this.#resolve = this.#reject = undefined;
    for (const c of this.#controllers) c.abort(err);
    this.#pending = 0;
  }
}
