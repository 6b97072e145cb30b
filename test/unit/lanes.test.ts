import { describe, expect, it } from 'vitest';
import { Lanes, Semaphore } from '../../main/engine/run/lanes.js';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('Lanes', () => {
  it('runs one session strictly in order, one at a time', async () => {
    const lanes = new Lanes(4);
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((g, i) =>
      lanes.run('s', async () => {
        log.push(`start${i}`);
        await g.promise;
        log.push(`end${i}`);
      }),
    );
    await tick();
    expect(log).toEqual(['start0']);
    gates[1]!.resolve();
    await tick();
    expect(log).toEqual(['start0']);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await Promise.all(runs);
    expect(log).toEqual(['start0', 'end0', 'start1', 'end1', 'start2', 'end2']);
    expect(lanes.isBusy('s')).toBe(false);
  });

  it('bounds concurrency across sessions by the global lane', async () => {
    const lanes = new Lanes(2);
    let active = 0;
    let peak = 0;
    const gate = deferred();
    const runs = ['a', 'b', 'c', 'd'].map((key) =>
      lanes.run(key, async () => {
        active++;
        peak = Math.max(peak, active);
        await gate.promise;
        active--;
      }),
    );
    await tick();
    expect(lanes.activeCount).toBe(2);
    gate.resolve();
    await Promise.all(runs);
    expect(peak).toBe(2);
  });

  it('a failing task neither wedges its session lane nor leaks a global slot', async () => {
    const lanes = new Lanes(1);
    await expect(lanes.run('s', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(lanes.run('s', async () => 42)).resolves.toBe(42);
    await expect(lanes.run('t', async () => 7)).resolves.toBe(7);
  });

  it('rejects a nonsensical limit', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
