/**
 * The one Timers interface (injected everywhere a delay matters: run timeout, backoff, lanes, hooks, the idle
 * watchdog), so tests drive time exactly with fake timers. `clock` is the time those timers run on (Date.now when
 * absent).
 */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  clock?(): number;
}

export const nodeTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  clock: () => Date.now(),
};
