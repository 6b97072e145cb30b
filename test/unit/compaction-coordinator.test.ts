/** E18: counter + one promise, microtask re-check, AbortError on unsubscribe. */
import { describe, expect, it } from 'vitest';
import { CompactionCoordinator } from '../../main/engine/run/compaction-coordinator.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('CompactionCoordinator', () => {
  it('wait() resolves at once when nothing is pending', async () => {
    const c = new CompactionCoordinator();
    expect(c.isCompacting).toBe(false);
    await expect(c.wait()).resolves.toBeUndefined();
  });

  it('waiters share one promise that resolves when the last retry and the compaction are done', async () => {
    const c = new CompactionCoordinator();
    c.beginRetry();
    c.beginRetry();
    let done = 0;
    const a = c.wait().then(() => done++);
    const b = c.wait().then(() => done++);
    c.resolveRetry();
    await tick();
    expect(done).toBe(0);
    expect(c.isCompacting).toBe(true);
    c.resolveRetry();
    await Promise.all([a, b]);
    expect(done).toBe(2);
    expect(c.isCompacting).toBe(false);
  });

  it('the microtask re-check catches a compaction that starts in the same tick as wait()', async () => {
    const c = new CompactionCoordinator();
    let release!: () => void;
    const waiting = c.wait();
    let settled = false;
    void waiting.then(() => (settled = true));
    const running = c.run(new AbortController().signal, () => new Promise<void>((r) => (release = r)));
    await tick();
    expect(settled).toBe(false);
    expect(c.isCompacting).toBe(true);
    release();
    await running;
    await waiting;
    expect(settled).toBe(true);
  });

  it('unsubscribe rejects waiters with an AbortError and aborts the compaction in flight', async () => {
    const c = new CompactionCoordinator();
    let seen: AbortSignal | undefined;
    const running = c.run(new AbortController().signal, (signal) => {
      seen = signal;
      return new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    const waiting = c.wait();
    c.unsubscribe();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen?.aborted).toBe(true);
    await expect(c.wait()).rejects.toMatchObject({ name: 'AbortError' });
    await expect(c.run(new AbortController().signal, async () => 1)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a compaction follows the parent signal', async () => {
    const c = new CompactionCoordinator();
    const parent = new AbortController();
    const running = c.run(parent.signal, (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))));
    parent.abort();
    await expect(running).rejects.toThrow('stopped');
    expect(c.isCompacting).toBe(false);
  });

  it('resolveRetry without a pending retry does nothing', () => {
    const c = new CompactionCoordinator();
    c.resolveRetry();
    expect(c.pendingRetries).toBe(0);
  });

  it('endRun() (the run ended: the seed\'s agent end) resolves retries no attempt will resolve, so waiters go on', async () => {
    const c = new CompactionCoordinator();
    c.beginRetry();
    let done = false;
    const waiting = c.wait().then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    c.endRun();
    await waiting;
    expect([done, c.isCompacting, c.pendingRetries]).toEqual([true, false, 0]);
  });
});
