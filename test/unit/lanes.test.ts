import { describe, expect, it } from 'vitest';
import { Lane, LaneEntryRemovedError, Lanes } from '../../main/engine/run/lanes.js';
import { fakeTimers } from '../support/fake-timers.js';

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
    expect(active).toBe(2);
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

  it.each([0, -1, 1.5])('rejects the nonsensical limit %s', (limit) => {
    expect(() => new Lane(limit)).toThrow(RangeError);
  });

  it('keeps the subagent lane separate: a parent holding the only global slot can still run its child', async () => {
    const lanes = new Lanes({ maxConcurrent: 1, subagentConcurrent: 2 });
    const result = await lanes.run('parent', () => lanes.run('child', async () => 'child done', { id: 'c', lane: 'subagent' }), { id: 'p' });
    expect(result).toBe('child done');
  });

  it('lists queued entries with their stage and position, and removing one means its task never starts', async () => {
    const lanes = new Lanes(1);
    const gate = deferred();
    const started: string[] = [];
    const task = (name: string) => async () => {
      started.push(name);
      await gate.promise;
    };
    const a = lanes.run('s', task('a'), { id: 'a' });
    const b = lanes.run('s', task('b'), { id: 'b' });
    const c = lanes.run('t', task('c'), { id: 'c' });
    await tick();
    expect(lanes.list().map((e) => [e.id, e.stage, e.position])).toEqual([
      ['b', 'session', 0],
      ['c', 'global', 0],
    ]);
    expect(lanes.list('s').map((e) => e.id)).toEqual(['b']);
    expect(lanes.remove('b')).toBe(true);
    expect(lanes.remove('b')).toBe(false);
    expect(lanes.remove('a')).toBe(false); // running: not removable
    await expect(b).rejects.toBeInstanceOf(LaneEntryRemovedError);
    gate.resolve();
    await Promise.all([a, c]);
    expect(started).toEqual(['a', 'c']);
  });

  it('an entry whose signal aborts while queued is removed with the abort reason and never runs', async () => {
    const lanes = new Lanes(1);
    const gate = deferred();
    const first = lanes.run('s', () => gate.promise, { id: 'first' });
    const controller = new AbortController();
    let ran = false;
    const queued = lanes.run('s', async () => void (ran = true), { id: 'second', signal: controller.signal });
    await tick();
    controller.abort(new Error('stopped by the user'));
    await expect(queued).rejects.toThrow('stopped by the user');
    gate.resolve();
    await first;
    await tick();
    expect(ran).toBe(false);
    expect(lanes.isBusy('s')).toBe(false);
  });

  it('front (interrupt) jumps the session queue', async () => {
    const lanes = new Lanes(4);
    const gate = deferred();
    const order: string[] = [];
    const runs = [
      lanes.run('s', () => gate.promise, { id: 'running' }),
      lanes.run('s', async () => void order.push('followup'), { id: 'followup' }),
      lanes.run('s', async () => void order.push('interrupt'), { id: 'interrupt', front: true }),
    ];
    await tick();
    gate.resolve();
    await Promise.all(runs);
    expect(order).toEqual(['interrupt', 'followup']);
  });

  it('reports a wait over 2 s once, naming the lane it waits in (injected timers)', async () => {
    const { timers, pending } = fakeTimers();
    let t = 0;
    const lanes = new Lanes({ maxConcurrent: 1, timers, now: () => t });
    const gate = deferred();
    const waits: unknown[] = [];
    const holder = lanes.run('a', () => gate.promise, { id: 'holder', onWait: (w) => waits.push(['holder', w]) });
    const waiter = lanes.run('b', async () => undefined, { id: 'waiter', onWait: (w) => waits.push(['waiter', w]) });
    await tick();
    expect(pending.map((p) => p.ms)).toEqual([2000]); // the holder started at once: its timer is gone
    t = 2000;
    pending[0]!.fn();
    expect(waits).toEqual([['waiter', { waitedMs: 2000, lane: 'global' }]]);
    gate.resolve();
    await Promise.all([holder, waiter]);
    expect(pending).toEqual([]);
  });

  it('takes the cross-process session lock after the session lane and before the bounded lane', async () => {
    const log: string[] = [];
    const lanes = new Lanes({
      maxConcurrent: 1,
      sessionLock: async (key) => {
        log.push(`lock ${key}`);
        return async () => void log.push(`unlock ${key}`);
      },
    });
    await lanes.run('s', async () => void log.push('task'), { id: 'x' });
    expect(log).toEqual(['lock s', 'task', 'unlock s']);
  });

  it('never exceeds the global bound with 50 concurrent tasks', async () => {
    const lanes = new Lanes(4);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        lanes.run(`s${i % 7}`, async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 1));
          active--;
        }, { id: `r${i}` }),
      ),
    );
    expect(peak).toBe(4);
  });
});
