/**
 * E7: exponential backoff before an overload failover, and an abortable sleep.
 * Delay for attempt n (1-based) = min(maxMs, round(base + base·jitter·random())), base = initialMs·factor^(n−1);
 * with the defaults: 250 → 500 → 1000 → 1500 ms (+ up to 20 % jitter, never above 1500).
 */
import { abortError } from '../abort.js';
import { nodeTimers, type Timers } from '../timers.js';

export interface BackoffOptions {
  initialMs: number;
  factor: number;
  maxMs: number;
  /** Fraction of the base delay added at most (random() ∈ [0, 1) scales it). */
  jitter: number;
}

export const OVERLOAD_BACKOFF: Readonly<BackoffOptions> = Object.freeze({
  initialMs: 250,
  factor: 2,
  maxMs: 1500,
  jitter: 0.2,
});

export function backoffDelay(
  attempt: number,
  random: () => number,
  opts: BackoffOptions = OVERLOAD_BACKOFF,
): number {
  const n = Number.isFinite(attempt) ? Math.max(1, Math.floor(attempt)) : 1;
  const base = opts.initialMs * opts.factor ** (n - 1);
  const jitter = base * opts.jitter * random();
  return Math.max(0, Math.min(opts.maxMs, Math.round(base + jitter)));
}

export type { Timers } from '../timers.js';

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts (at once if already aborted). */
export function sleepAbortable(ms: number, signal?: AbortSignal, timers: Timers = nodeTimers): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    if (!(ms > 0)) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      reject(abortError());
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
