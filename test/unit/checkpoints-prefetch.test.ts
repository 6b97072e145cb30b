/**
 * X2: a turn's capture prepared on the checkpoint worker beside the run (prefetch.ts, gate.ts, checkpoint-worker.ts,
 * prepare.ts), through the real gate and store and a real worker thread (the worker's TypeScript source, loaded
 * through tsx: the built app loads out/main/checkpoint-worker.js instead, see test/integration/cli-checkpoints).
 *
 * - The worker thread is started when a run first waits for its model (its start is CPU the run's own setup needs),
 *   and once it runs a capture starts with its run.
 * - The record is of the folder as it was when the capture started: a file the agent then writes is captured with its
 *   pre-write content (and a file the person changed after the start is recorded as it was at the start).
 * - A run that ends without a mutating call records nothing, and the worker's temporary pack is removed — also when
 *   the run ends before the worker answers, and when the worker is stopped mid-capture.
 * - Another run changing the folder in between: the prepared capture is thrown away and the folder captured at the
 *   gate. A worker that fails: every capture is taken at the gate, as without it.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CheckpointPrefetcher, type WorkerLike } from '../../main/checkpoints/prefetch.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { gateHarness } from '../support/checkpoint-gate.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpp');

const WORKER_SOURCE = new URL('../../main/checkpoints/checkpoint-worker.ts', import.meta.url).href;
/** The worker from its TypeScript source (tsx registered in the thread first). */
const sourceWorker = (code = `const { register } = await import('tsx/esm/api'); register(); await import(${JSON.stringify(WORKER_SOURCE)});`) =>
  new Worker(code, { eval: true });

async function setup(o: { spawn?: () => WorkerLike | undefined } = {}) {
  const root = tmp('ws');
  for (let i = 0; i < 20; i++) writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  writeFileSync(path.join(root, 'a.txt'), 'original a\n');
  const home = tmp('home');
  const store = new CheckpointStore(home, { onNotice: () => {} });
  // The folder's first checkpoint (in this thread): from now on its pointer says how large it is.
  await store.snapshot({ sessionKey: 'first', root, label: 'first' });
  const answers: Array<() => void> = [];
  let answered = 0;
  const errors: string[] = [];
  const spawned: Worker[] = [];
  const prefetch = new CheckpointPrefetcher({
    store,
    minEntries: 1,
    onError: (l) => errors.push(l),
    spawn:
      o.spawn ??
      (() => {
        const w = sourceWorker();
        spawned.push(w);
        w.on('message', () => {
          answered++;
          answers.splice(0).forEach((f) => f());
        });
        return w;
      }),
  });
  const { runs, lifecycle, gate } = gateHarness(store, root, prefetch);
  const emitted: Array<Record<string, unknown>> = [];
  const call = (runId: string, sessionKey = 's') => gate({ runId, sessionKey, toolName: 'write', emit: (d) => void emitted.push(d as Record<string, unknown>) });
  /** Resolves once the worker has answered `n` jobs in all. */
  const answeredTimes = async (n: number) => {
    while (answered < n) await new Promise<void>((r) => answers.push(r));
    await new Promise((r) => setImmediate(r)); // the prefetcher's own handlers run first
  };
  const tmpFiles = () => readdirSync(store.packsDir).filter((n) => n.startsWith('tmp-'));
  const contentOf = async (tree: string, p: string) => {
    const e = store.loadTree(tree).entries.find((x) => x.p === p);
    return e?.h ? (await store.readObject(e.h)).toString('utf8') : undefined;
  };
  return { root, store, prefetch, runs, lifecycle, gate, call, emitted, answeredTimes, tmpFiles, contentOf, errors, spawned };
}

describe('a turn capture prepared on the checkpoint worker', () => {
  it('records the folder as it was when the run started: a file the agent writes keeps its pre-write content', async () => {
    const h = await setup();
    try {
      h.lifecycle('r1', 'start');
      await h.answeredTimes(1);
      writeFileSync(path.join(h.root, 'f3.txt'), 'changed by the person after the start\n');
      await h.call('r1');
      writeFileSync(path.join(h.root, 'a.txt'), 'written by the agent\n'); // the tool runs after the gate
      h.lifecycle('r1', 'end');
      const [cp] = h.store.list('s');
      expect(h.emitted).toEqual([expect.objectContaining({ phase: 'created', id: cp!.id, files: 21, takenAt: expect.any(Number) })]);
      expect(cp!.takenAt).toBeLessThanOrEqual(cp!.createdAt);
      expect(await h.contentOf(cp!.tree, 'a.txt')).toBe('original a\n');
      expect(await h.contentOf(cp!.tree, 'f3.txt')).toBe('file 3\n');
      expect(h.tmpFiles()).toEqual([]);
      // The committed capture is a normal checkpoint: a restore puts the pre-write content back.
      await h.store.restore({ sessionKey: 's', id: cp!.id, files: true });
      expect(readFileSync(path.join(h.root, 'a.txt'), 'utf8')).toBe('original a\n');
      // The next turn builds on it (stat cache and delta from the worker's tree).
      h.lifecycle('r2', 'start');
      await h.answeredTimes(2);
      await h.call('r2');
      h.lifecycle('r2', 'end');
      const second = h.store.list('s')[1]!;
      expect(second.takenAt).toBeDefined();
      expect(await h.contentOf(second.tree, 'a.txt')).toBe('original a\n');
      expect(h.store.baseOf(second.tree)).toBeDefined(); // stored as a delta
    } finally {
      await h.prefetch.close();
    }
  });

  it('a run without a mutating call records nothing and leaves no temporary pack (also when it ends first, or the worker is stopped)', async () => {
    const h = await setup();
    try {
      const pointer = h.store.latestEntries(h.root);
      writeFileSync(path.join(h.root, 'new.txt'), 'new content to store\n'); // something for the worker to write
      h.lifecycle('r1', 'start');
      h.lifecycle('r1', 'end'); // before the worker answers
      await h.answeredTimes(1);
      expect(h.tmpFiles()).toEqual([]);
      expect(h.store.list('s')).toEqual([]);
      expect(h.store.latestEntries(h.root)).toBe(pointer);
      h.lifecycle('r2', 'start');
      await h.answeredTimes(2);
      h.lifecycle('r2', 'end'); // after it answered
      await new Promise((r) => setImmediate(r));
      expect(h.tmpFiles()).toEqual([]);
      h.lifecycle('r3', 'start');
      await h.prefetch.close(); // mid-capture: the thread is stopped and its pack removed
      expect(h.tmpFiles()).toEqual([]);
      expect(h.store.list('s')).toEqual([]);
    } finally {
      await h.prefetch.close();
    }
  });

  it('the worker thread is started when a run first waits for its model, not at its start; once running, a capture starts with its run', async () => {
    const h = await setup();
    try {
      // A run that ends before its first model call (a refused request, a stop) starts nothing.
      h.lifecycle('r0', 'start', { modelWait: false });
      h.lifecycle('r0', 'end');
      h.gate.waiting?.('r0');
      expect(h.spawned).toHaveLength(0);
      h.lifecycle('r1', 'start', { modelWait: false });
      expect(h.spawned).toHaveLength(0);
      expect(h.prefetch.has('r1')).toBe(false);
      h.gate.waiting?.('r1'); // the run's first model call
      expect(h.spawned).toHaveLength(1);
      expect(h.prefetch.has('r1')).toBe(true);
      await h.answeredTimes(1);
      h.gate.waiting?.('r1'); // its later model calls start nothing more
      await h.call('r1');
      h.lifecycle('r1', 'end');
      expect(h.store.list('s')[0]!.takenAt).toBeDefined();
      // The thread runs now: the next run's capture starts with the run.
      h.lifecycle('r2', 'start', { modelWait: false });
      expect(h.prefetch.has('r2')).toBe(true);
      expect(h.spawned).toHaveLength(1);
      await h.answeredTimes(2);
      await h.call('r2');
      h.lifecycle('r2', 'end');
      expect(h.store.list('s')[1]!.takenAt).toBeDefined();
      expect(h.tmpFiles()).toEqual([]);
    } finally {
      await h.prefetch.close();
    }
  });

  it('a run whose folder another run changes before its first model call gets no capture from that call', async () => {
    const h = await setup();
    try {
      h.runs.other = { sessionId: 'id-other', message: 'other', startedAt: Date.now() };
      h.lifecycle('r1', 'start', { modelWait: false });
      await h.call('other', 'other-session'); // another run passes its gate meanwhile (it may be changing the folder)
      h.gate.waiting?.('r1');
      expect(h.prefetch.has('r1')).toBe(false);
      await h.call('r1'); // captured at the gate instead
      h.lifecycle('r1', 'end');
      expect(h.store.list('s')[0]!.takenAt).toBeUndefined();
    } finally {
      await h.prefetch.close();
    }
  });

  it('closing with the worker idle does not wait for its thread, which still stops', async () => {
    const h = await setup();
    try {
      h.lifecycle('r1', 'start');
      await h.answeredTimes(1);
      await h.call('r1');
      h.lifecycle('r1', 'end');
      expect(h.store.list('s')).toHaveLength(1);
      const [w] = h.spawned;
      const exited = new Promise<number>((resolve) => w!.once('exit', resolve));
      let stopped = false;
      void exited.then(() => (stopped = true));
      await h.prefetch.close();
      expect(stopped).toBe(false); // close() returned before the thread was gone…
      await exited; // …and it goes all the same
      expect(h.tmpFiles()).toEqual([]);
    } finally {
      await h.prefetch.close();
    }
  });

  it('another run changing the folder after the start: the prepared capture is thrown away and the folder taken at the gate', async () => {
    const h = await setup();
    try {
      h.runs.other = { sessionId: 'id-other', message: 'other', startedAt: Date.now() };
      h.lifecycle('r1', 'start');
      await h.answeredTimes(1);
      await h.call('other', 'other-session');
      writeFileSync(path.join(h.root, 'by-other-run.txt'), 'x\n');
      await h.call('r1');
      h.lifecycle('r1', 'end');
      const [cp] = h.store.list('s');
      expect(cp!.takenAt).toBeUndefined();
      expect(h.store.loadTree(cp!.tree).entries.map((e) => e.p)).toContain('by-other-run.txt');
      expect(h.tmpFiles()).toEqual([]);
      // While that run is live, a new run is not prepared ahead at all.
      h.lifecycle('r2', 'start');
      expect(h.prefetch.has('r2')).toBe(false);
    } finally {
      await h.prefetch.close();
    }
  });

  it('a worker that fails: the turn is captured at the gate, and later runs are not prepared ahead', async () => {
    let spawns = 0;
    const h = await setup({
      spawn: () => {
        spawns++;
        return sourceWorker('throw new Error("the worker broke")');
      },
    });
    try {
      h.lifecycle('r1', 'start');
      await h.call('r1');
      h.lifecycle('r1', 'end');
      const [cp] = h.store.list('s');
      expect(cp).toBeDefined();
      expect(cp!.takenAt).toBeUndefined();
      expect(h.emitted).toEqual([expect.objectContaining({ phase: 'created', files: 21 })]);
      expect(h.errors.join('\n')).toMatch(/checkpoint worker stopped \(the worker broke\)/);
      h.lifecycle('r2', 'start');
      expect(h.prefetch.has('r2')).toBe(false);
      expect(spawns).toBe(1);
      expect(h.tmpFiles()).toEqual([]);
    } finally {
      await h.prefetch.close();
    }
  });
});

/** Nice values of this process's threads, by thread id (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      nices.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return nices;
}

describe.runIf(process.platform === 'linux')('the checkpoint worker is background work', () => {
  it('its thread runs at nice 10 and the thread that started it keeps its priority', async () => {
    const before = threadNices();
    const main = before.get(process.pid)!; // the test's thread: the pool runs test files in processes
    const w = sourceWorker();
    try {
      // Its first answer (a job for a folder that does not exist fails at once) comes after the priority is set.
      await new Promise((resolve) => {
        w.once('message', resolve);
        w.postMessage({ id: 1, input: { dir: tmp('none'), root: '/nonexistent-agentdesk', limits: { maxFileBytes: 1, maxTotalBytes: 1 }, exclude: [], packId: 'x' } });
      });
      const after = threadNices();
      const started = [...after].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
      expect(started).toContain(Math.max(main, 10));
      expect(after.get(process.pid)).toBe(main);
      for (const [tid, nice] of before) if (after.has(tid)) expect(after.get(tid), `thread ${tid}`).toBe(nice);
    } finally {
      await w.terminate();
    }
  });
});
