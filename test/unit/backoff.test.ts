import { describe, expect, it, vi } from 'vitest';
import {
  OVERLOAD_BACKOFF,
  backoffDelay,
  sleepAbortable,
  type Timers,
} from '../../main/engine/run/backoff.js';

describe('backoffDelay', () => {
  it.each<[number, number, number]>([
    // [attempt, random, expected ms] with the E7 policy 250 ms ×2, max 1500, jitter 0.2
    [1, 0, 250],
    [2, 0, 500],
    [3, 0, 1000],
    [4, 0, 1500], // 2000 capped
    [9, 0, 1500],
    [1, 0.5, 275],
    [2, 0.5, 550],
    [3, 0.5, 1100],
    [1, 0.999, 300], // 250 + 49.95 → 299.95 → 300
    [2, 0.999, 600],
    [3, 0.999, 1200],
    [4, 0.999, 1500],
    [0, 0, 250], // attempts below 1 count as the first
    [-3, 0.5, 275],
    [Number.NaN, 0, 250],
  ])('attempt %d, random %d → %d ms', (attempt, r, expected) => {
    expect(backoffDelay(attempt, () => r)).toBe(expected);
  });

  it.each<[number, number, number]>([
    [1, 0, 1000],
    [3, 0, 9000],
    [4, 0.5, 27000 * 1.25],
    [5, 0, 60000],
  ])('custom policy (1 s ×3, max 60 s, jitter 0.5): attempt %d, random %d → %d', (attempt, r, expected) => {
    expect(backoffDelay(attempt, () => r, { initialMs: 1000, factor: 3, maxMs: 60000, jitter: 0.5 })).toBe(expected);
  });

  it('uses the E7 defaults', () => {
    expect(OVERLOAD_BACKOFF).toEqual({ initialMs: 250, factor: 2, maxMs: 1500, jitter: 0.2 });
  });
});

/** Manual timers: nothing fires until `fire()`. */
function manualTimers(): Timers & { pending: Map<number, { cb: () => void; ms: number }>; fire(): void } {
  let next = 1;
  const pending = new Map<number, { cb: () => void; ms: number }>();
  return {
    pending,
    setTimeout(cb, ms) {
      const id = next++;
      pending.set(id, { cb, ms });
      return id;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
    fire() {
      for (const [id, t] of [...pending]) {
        pending.delete(id);
        t.cb();
      }
    },
  };
}

describe('sleepAbortable', () => {
  it('resolves when the timer fires and removes its abort listener', async () => {
    const timers = manualTimers();
    const ac = new AbortController();
    const remove = vi.spyOn(ac.signal, 'removeEventListener');
    let done = false;
    const p = sleepAbortable(750, ac.signal, timers).then(() => {
      done = true;
    });
    expect([...timers.pending.values()].map((t) => t.ms)).toEqual([750]);
    await Promise.resolve();
    expect(done).toBe(false);
    timers.fire();
    await p;
    expect(done).toBe(true);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects with an AbortError on abort and clears the timer', async () => {
    const timers = manualTimers();
    const ac = new AbortController();
    const p = sleepAbortable(1500, ac.signal, timers);
    expect(timers.pending.size).toBe(1);
    ac.abort();
    const err = await p.catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(timers.pending.size).toBe(0);
  });

  it('rejects at once when the signal is already aborted, scheduling nothing', async () => {
    const timers = manualTimers();
    const ac = new AbortController();
    ac.abort();
    await expect(sleepAbortable(100, ac.signal, timers)).rejects.toMatchObject({ name: 'AbortError' });
    expect(timers.pending.size).toBe(0);
  });

  it('resolves at once for 0 ms without a timer', async () => {
    const timers = manualTimers();
    await expect(sleepAbortable(0, undefined, timers)).resolves.toBeUndefined();
    expect(timers.pending.size).toBe(0);
  });

  it('works with the real timers', async () => {
    const t0 = Date.now();
    await sleepAbortable(20);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(15);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 5);
    await expect(sleepAbortable(10_000, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

});
