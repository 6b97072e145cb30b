/**
 * X2 garbage collection's mark (retention.ts `markLive`): deltas are grouped by base and never materialised. Held to
 * the definition it replaces — the contents of every live tree as `TreeFiles.load` materialises it, and every live
 * delta's base kept — on random histories of whole trees and deltas (fast-check), read from disk by a new process
 * and from the memory of the process that wrote them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { markLive } from '../../main/checkpoints/retention.js';
import { TreeFiles } from '../../main/checkpoints/tree-files.js';
import type { Tree, TreeEntry } from '../../main/checkpoints/tree.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'agentdesk-gcmark-'));
  dirs.push(d);
  return d;
};

const hash = (n: number) => createHash('sha256').update(`content ${n}`).digest('hex');
const entry = (p: string, content: number): TreeEntry => ({ p, k: 'f', m: 0o644, h: hash(content), s: 10, mt: content, ct: content, ino: 1 });
const dirEntry = (p: string): TreeEntry => ({ p, k: 'd', m: 0o755 });

/** One step of a history: paths changed to new contents, paths removed (from a pool of 24). */
const step = fc.record({
  set: fc.array(fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 40 })), { maxLength: 20 }),
  del: fc.array(fc.integer({ min: 0, max: 23 }), { maxLength: 6 }),
});

function build(dir: string, history: Array<{ set: Array<[number, number]>; del: number[] }>) {
  const files = new TreeFiles(dir);
  const state = new Map<string, number>();
  for (let i = 0; i < 16; i++) state.set(`src/f${String(i).padStart(2, '0')}.txt`, i);
  const ids: string[] = [];
  let prev: string | undefined;
  for (const [n, s] of history.entries()) {
    for (const [f, c] of s.set) state.set(`src/f${String(f).padStart(2, '0')}.txt`, 100 + c);
    for (const f of s.del) state.delete(`src/f${String(f).padStart(2, '0')}.txt`);
    const entries = [dirEntry('src'), ...[...state].map(([p, c]) => entry(p, c))].sort((a, b) => (a.p < b.p ? -1 : 1));
    const tree: Tree = { v: 1, root: '/ws', takenAt: n, entries, skipped: [] };
    prev = files.save(tree, prev);
    ids.push(prev);
  }
  return { files, ids };
}

/** The definition: every live tree materialised; a delta keeps its base. */
function expected(dir: string, live: readonly string[]) {
  const files = new TreeFiles(dir);
  const contents = new Set<string>();
  const trees = new Set(live);
  for (const id of live) {
    for (const e of files.load(id).entries) if (e.h) contents.add(e.h);
    const base = files.baseOf(id);
    if (base) trees.add(base);
  }
  return { contents: [...contents].sort(), trees: [...trees].sort() };
}

describe('markLive', () => {
  it('marks what materialising every live tree marks, and keeps every live delta’s base (random histories)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 14 }), fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }), (history, keepFlags) => {
        const dir = tmp();
        const { files, ids } = build(dir, history);
        const live = [...new Set(ids.filter((_, i) => keepFlags[i]))];
        const want = expected(dir, live);
        for (const reader of [new TreeFiles(dir), files]) {
          const trees = new Set(live);
          const got = markLive(reader, trees);
          expect([...got].sort()).toEqual(want.contents);
          expect([...trees].sort()).toEqual(want.trees);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a tree that cannot be read, or a delta whose base is gone, keeps nothing alive and is dropped', () => {
    const dir = tmp();
    const { ids } = build(dir, [{ set: [], del: [] }, { set: [[1, 1]], del: [] }, { set: [[2, 2]], del: [3] }]);
    const [base, d1, d2] = ids as [string, string, string];
    const files = new TreeFiles(dir);
    expect(files.baseOf(d1)).toBe(base);
    rmSync(path.join(dir, `${base}.json.gz`));
    rmSync(path.join(dir, `${base}.bin`), { force: true });
    const missing = 'f'.repeat(64);
    writeFileSync(path.join(dir, `${'e'.repeat(64)}.json.gz`), 'not gzip');
    const trees = new Set([d1, d2, missing, 'e'.repeat(64)]);
    expect(markLive(new TreeFiles(dir), trees)).toEqual(new Set());
    expect(trees).toEqual(new Set());
  });
});
