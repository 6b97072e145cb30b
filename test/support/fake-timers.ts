/** Injected timers for exact tests: records each delay, fires on demand. */
import type { Timers } from '../../main/engine/run/agent-run.js';

export function fakeTimers() {
  const pending: { fn: () => void; ms: number }[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      const h = { fn, ms };
      pending.push(h);
      return h;
    },
    clearTimeout: (h) => {
      const i = pending.indexOf(h as (typeof pending)[number]);
      if (i >= 0) pending.splice(i, 1);
    },
  };
  return { timers, pending, fireAll: () => pending.splice(0).forEach((p) => p.fn()) };
}
