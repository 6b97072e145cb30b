/**
 * X2 retention at the cap: a turn that drops a checkpoint collects only once a tenth of `keep` dropped checkpoints
 * wait (`collectionDue`, counted in `gc.json`), never more than that waits, what a person can list and restore is the
 * same as with a collection at every drop, Settings' figure (`usage`) never counts what waits, and a `gc.json` that is
 * missing or damaged makes the next drop collect (never wait for ever).
 */
import fc from 'fast-check';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { collectionDue, countDropped, readDropped } from '../../main/checkpoints/retention.js';
import { CheckpointStore, DEFAULT_CHECKPOINT_SETTINGS } from '../../main/checkpoints/store.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpret');

describe('collectionDue', () => {
  it.each<[string, { dropped: number; keep: number }, boolean]>([
    ['nothing dropped', { dropped: 0, keep: 100 }, false],
    ['one drop, keep 100: waits', { dropped: 1, keep: 100 }, false],
    ['nine drops, keep 100: waits', { dropped: 9, keep: 100 }, false],
    ['a tenth of keep: collects', { dropped: 10, keep: 100 }, true],
    ['more at once (maxAgeDays): collects', { dropped: 57, keep: 100 }, true],
    ['keep 15: two drops (rounded up), one waits', { dropped: 1, keep: 15 }, false],
    ['keep 15: two drops collect', { dropped: 2, keep: 15 }, true],
    ['keep 2: every drop collects (as before)', { dropped: 1, keep: 2 }, true],
    ['keep 0: every drop collects', { dropped: 1, keep: 0 }, true],
    ['not known (no or a damaged gc.json): collects', { dropped: Infinity, keep: 100 }, true],
  ])('%s', (_name, o, due) => {
    expect(collectionDue(o)).toBe(due);
  });
});

describe('readDropped / countDropped (gc.json)', () => {
  it.each<[string, string | null, number]>([
    ['no file: not known', null, Infinity],
    ['a count', '{"dropped":3}', 3],
    ['zero', '{"dropped":0}', 0],
    ['torn', '{"dropped":', Infinity],
    ['negative', '{"dropped":-5}', Infinity],
    ['fractional', '{"dropped":1.5}', Infinity],
    ['a string', '{"dropped":"3"}', Infinity],
    ['null', 'null', Infinity],
    ['huge past safe integers', '{"dropped":1e300}', Infinity],
  ])('%s', (_name, text, n) => {
    const file = path.join(tmp('gc'), 'gc.json');
    if (text !== null) writeFileSync(file, text);
    expect(readDropped(file)).toBe(n);
  });

  it('adds drops before the log loses them; a figure not known stays not known (and is not written)', () => {
    const file = path.join(tmp('gc'), 'gc.json');
    writeFileSync(file, '{"dropped":2}');
    expect(countDropped(file, 3)).toBe(5);
    expect(readDropped(file)).toBe(5);
    expect(countDropped(file, 0)).toBe(5);
    writeFileSync(file, 'junk');
    expect(countDropped(file, 1)).toBe(Infinity);
    expect(readFileSync(file, 'utf8')).toBe('junk');
  });
});

const list = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return []; // no store yet
  }
};
const settings = (keep: number) => () => ({ ...DEFAULT_CHECKPOINT_SETTINGS, keep });
const treeFiles = (home: string) => new Set(list(path.join(home, 'trees')).filter((n) => n.endsWith('.json.gz')).map((n) => n.slice(0, -8)));
const packBytes = (home: string) =>
  readdirSync(path.join(home, 'packs'))
    .filter((n) => n.endsWith('.pack'))
    .reduce((n, p) => n + statSync(path.join(home, 'packs', p)).size, 0);
/** Trees the logs and pointers name, read by the test itself. */
function named(home: string): Set<string> {
  const out = new Set<string>();
  for (const n of list(path.join(home, 'sessions')).filter((x) => x.endsWith('.jsonl'))) {
    for (const line of readFileSync(path.join(home, 'sessions', n), 'utf8').split('\n')) if (line.trim() && JSON.parse(line).type === 'checkpoint') out.add(JSON.parse(line).tree);
  }
  for (const n of list(path.join(home, 'workspaces')).filter((x) => x.endsWith('.json'))) out.add(JSON.parse(readFileSync(path.join(home, 'workspaces', n), 'utf8')).tree);
  return out;
}
/** The bases the named trees that are deltas are stored against (read by the test from the tree files). */
function bases(home: string): Set<string> {
  const out = new Set<string>();
  for (const id of named(home)) {
    try {
      const t = JSON.parse(gunzipSync(readFileSync(path.join(home, 'trees', `${id}.json.gz`))).toString('utf8')) as { base?: string };
      if (t.base) out.add(t.base);
    } catch {
      /* not on disk */
    }
  }
  return out;
}
const unnamed = (home: string) => [...treeFiles(home)].filter((id) => !named(home).has(id));

describe('retention at the cap', () => {
  it('waits for a tenth of keep dropped checkpoints, then collects them all at once; usage() collects what waits first', async () => {
    const root = tmp('ws');
    const home = tmp('home');
    for (let i = 0; i < 30; i++) writeFileSync(path.join(root, `stable${i}.txt`), `stable ${i}`);
    const store = new CheckpointStore(home, { settings: settings(20), onNotice: () => {} });
    const trees: string[] = [];
    const turn = async (i: number) => {
      writeFileSync(path.join(root, 'file.txt'), `version ${String(i).padStart(3, '0')} `.repeat(200)); // 2 KB, one content per turn
      trees.push((await store.snapshot({ sessionKey: 's', root, label: `turn ${i}` })).tree);
    };
    const dropped = () => readDropped(path.join(home, 'gc.json'));
    for (let i = 0; i < 21; i++) await turn(i); // the first drop (no gc.json yet: not known) collects at once
    expect(dropped()).toBe(0);
    const full = packBytes(home);
    await turn(21); // drops turn 1: listed no more, its tree and version 1 wait
    expect(store.list('s').map((r) => r.label)).toEqual(Array.from({ length: 20 }, (_, k) => `turn ${k + 2}`));
    expect(dropped()).toBe(1);
    expect(treeFiles(home).has(trees[1]!)).toBe(true);
    expect(packBytes(home)).toBeGreaterThan(full);
    await turn(22); // drops turn 2: two wait (a tenth of 20): collected, and the contents only they held
    expect(dropped()).toBe(0);
    expect(treeFiles(home).has(trees[1]!)).toBe(false);
    expect(treeFiles(home).has(trees[2]!)).toBe(false);
    // The first tree is the base every later one is stored as a delta against: unnamed, yet live.
    expect(treeFiles(home).has(trees[0]!)).toBe(true);
    expect(packBytes(home)).toBeLessThanOrEqual(full); // versions 1 and 2 gone, 21 and 22 in
    await turn(23);
    expect(treeFiles(home).has(trees[3]!)).toBe(true); // one waits
    const shown = (await new CheckpointStore(home, { onNotice: () => {} }).usage()).bytes; // Settings: collects first
    expect(treeFiles(home).has(trees[3]!)).toBe(false);
    expect(dropped()).toBe(0);
    expect(store.diskUsage().bytes).toBe(shown);
    // Every listed checkpoint still restores exactly, read back by a fresh store.
    for (const r of store.list('s')) {
      await new CheckpointStore(home, { onNotice: () => {} }).restore({ sessionKey: 's', id: r.id, files: true });
      const i = Number(r.label.split(' ')[1]);
      expect(readFileSync(path.join(root, 'file.txt'), 'utf8')).toBe(`version ${String(i).padStart(3, '0')} `.repeat(200));
    }
  });

  it('usage() of a store that does not exist creates nothing', async () => {
    const home = path.join(tmp('none'), 'checkpoints');
    expect(await new CheckpointStore(home, { onNotice: () => {} }).usage()).toEqual({ bytes: 0, sessions: 0 });
    expect(() => readdirSync(home)).toThrow();
  });

  it.each([
    ['missing', null],
    ['damaged', '{"dropped": '],
    ['crafted negative', JSON.stringify({ dropped: -1e9 })],
    ['crafted not a number', JSON.stringify({ dropped: 'none' })],
  ])('gc.json %s, rewritten before every turn: every drop collects (nothing waits)', async (_name, text) => {
    const root = tmp('ws');
    const home = tmp('home');
    for (let i = 0; i < 10; i++) writeFileSync(path.join(root, `stable${i}.txt`), `stable ${i}`);
    const keep = 20;
    const store = new CheckpointStore(home, { settings: settings(keep), onNotice: () => {} });
    const trees: string[] = [];
    for (let i = 0; i < 40; i++) {
      if (text === null) rmSync(path.join(home, 'gc.json'), { force: true });
      else writeFileSync(path.join(home, 'gc.json'), text);
      writeFileSync(path.join(root, 'file.txt'), `version ${i}`);
      trees.push((await store.snapshot({ sessionKey: 's', root, label: `turn ${i}` })).tree);
      if (i >= keep) expect(treeFiles(home).has(trees[i - keep]!)).toBe(i - keep === 0); // only the base stays
    }
    expect(store.list('s')).toHaveLength(keep);
  });
});

describe('retention at the cap: random histories (fast-check)', () => {
  type Op = { op: 'write'; file: number; v: number } | { op: 'delete'; file: number } | { op: 'checkpoint' } | { op: 'restore'; which: number } | { op: 'undo' };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ op: fc.constant('write' as const), file: fc.integer({ min: 0, max: 5 }), v: fc.integer({ min: 0, max: 1000 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), file: fc.integer({ min: 0, max: 5 }) }) },
    { weight: 5, arbitrary: fc.constant({ op: 'checkpoint' as const }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('restore' as const), which: fc.nat() }) },
    { weight: 1, arbitrary: fc.constant({ op: 'undo' as const }) },
  );
  const state = (root: string) =>
    Object.fromEntries(
      readdirSync(root)
        .sort()
        .map((n) => [n, readFileSync(path.join(root, n), 'utf8')]),
    );

  it('lists the last keep turns, restores each exactly, and never lets more than a tenth of keep trees wait', async () => {
    const home = tmp('home');
    let run = 0;
    let waited = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 11, max: 16 }), fc.array(opArb, { minLength: 40, maxLength: 100 }), async (keep, ops) => {
        const root = tmp('ws');
        const dir = path.join(home, `store-${run++}`);
        const store = new CheckpointStore(dir, { settings: settings(keep), onNotice: () => {} });
        const taken: Array<{ id: string; state: Record<string, string> }> = [];
        const share = Math.ceil(keep / 10);
        for (const o of ops) {
          if (o.op === 'write') writeFileSync(path.join(root, `f${o.file}`), `v${o.v}`);
          else if (o.op === 'delete') rmSync(path.join(root, `f${o.file}`), { force: true });
          else if (o.op === 'checkpoint') {
            const s = state(root);
            taken.push({ id: (await store.snapshot({ sessionKey: 's', root, label: 'x' })).id, state: s });
          } else if (o.op === 'restore') {
            const listed = store.list('s');
            if (!listed.length) continue;
            const target = listed[o.which % listed.length]!;
            await store.restore({ sessionKey: 's', id: target.id, files: true });
            expect(state(root)).toEqual(taken.find((t) => t.id === target.id)!.state);
          } else {
            const last = store.lastRestore('s');
            if (last) await store.restore({ sessionKey: 's', id: last.before, files: true, undoOf: last.id });
          }
          // What can be listed is what a collection at every drop would list: the last `keep` turns.
          expect(store.list('s').map((r) => r.id)).toEqual(taken.slice(-keep).map((t) => t.id));
          // What waits: fewer dropped trees than a tenth of keep (the bases of named deltas are live, not waiting).
          const waiting = unnamed(dir).filter((id) => !bases(dir).has(id)).length;
          expect(waiting).toBeLessThan(share);
          if (waiting > 0) waited++;
        }
        // Every listed checkpoint restores exactly, from a fresh store after Settings collected what waited.
        const before = (await new CheckpointStore(dir, { onNotice: () => {} }).usage()).bytes;
        expect(store.diskUsage().bytes).toBe(before);
        for (const r of store.list('s')) {
          await new CheckpointStore(dir, { onNotice: () => {} }).restore({ sessionKey: 's', id: r.id, files: true });
          expect(state(root)).toEqual(taken.find((t) => t.id === r.id)!.state);
        }
      }),
      { numRuns: Number(process.env.AGENTDESK_SLOW_TESTS ? 40 : 15) },
    );
    // The histories really reached the cap and left dropped trees waiting (not only runs that never dropped one).
    expect(waited).toBeGreaterThan(20);
  }, 120_000);
});
