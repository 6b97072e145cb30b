import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../main/sessions/write-lock.js';

/** A promise plus its resolver, so tests decide exactly when a task finishes. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('KeyedMutex (E13)', () => {
  it('runs tasks of one key strictly one at a time, in call order', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      m.run('s', async () => {
        log.push(`start ${i}`);
        await g.p;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await tick();
    expect(log).toEqual(['start 0']);
    gates[2]!.open(); // finishing a later gate early must not let it jump the queue
    gates[1]!.open();
    await tick();
    expect(log).toEqual(['start 0']);
    gates[0]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('different keys do not wait for each other', async () => {
    const m = new KeyedMutex();
    const g = gate();
    const slow = m.run('a', () => g.p.then(() => 'a'));
    expect(await m.run('b', async () => 'b')).toBe('b');
    g.open();
    expect(await slow).toBe('a');
  });

  it('a failing task (rejection or sync throw) rejects only its caller and does not break the chain', async () => {
    const m = new KeyedMutex();
    const order: number[] = [];
    const a = m.run('k', async () => {
      order.push(1);
      throw new Error('boom');
    });
    const b = m.run('k', () => {
      order.push(2);
      throw new Error('sync boom');
    });
    const c = m.run('k', async () => {
      order.push(3);
      return 'ok';
    });
    await expect(a).rejects.toThrow('boom');
    await expect(b).rejects.toThrow('sync boom');
    await expect(c).resolves.toBe('ok');
    expect(order).toEqual([1, 2, 3]);
  });

  it('forgets a key once its queue has drained', async () => {
    const m = new KeyedMutex();
    await Promise.all([m.run('x', async () => 1), m.run('y', async () => 2)]);
    await tick();
    expect(m.size).toBe(0);
  });

  it('a task that starts another task of the same key after it is queued sees it run afterwards', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    let inner: Promise<void> | undefined;
    await m.run('k', async () => {
      inner = m.run('k', async () => {
        log.push('inner');
      });
      await tick();
      log.push('outer done');
    });
    await inner;
    expect(log).toEqual(['outer done', 'inner']);
  });
});
