/**
 * X2 delta trees: treeDelta / applyDelta (table and property: applying the delta gives the next tree exactly), and
 * the checks of a tree read back (loadForCache vs load).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CorruptObjectError } from '../../main/checkpoints/objects.js';
import { applyDelta, treeDelta, TreeFiles } from '../../main/checkpoints/tree-files.js';
import { encodeTree, treeId, type TreeEntry } from '../../main/checkpoints/tree.js';

const f = (p: string, h: string, mt = 1): TreeEntry => ({ p, k: 'f', m: 0o644, h, s: 1, mt, ct: mt, ino: 1 });

describe('treeDelta / applyDelta', () => {
  it.each([
    ['same', [f('a', '1')], [f('a', '1')], [], []],
    ['content', [f('a', '1')], [f('a', '2')], ['a'], []],
    ['only the stat cache key (touched)', [f('a', '1', 1)], [f('a', '1', 2)], ['a'], []],
    ['added and removed', [f('a', '1'), f('c', '3')], [f('b', '2'), f('c', '3')], ['b'], ['a']],
  ])('%s', (_n, prev, next, set, del) => {
    const d = treeDelta(prev, next);
    expect(d.set.map((e) => e.p)).toEqual(set);
    expect(d.del).toEqual(del);
    expect(applyDelta(prev, d.set, d.del)).toEqual(next);
  });

  const entries = fc
    .uniqueArray(fc.record({ p: fc.stringMatching(/^[a-d]{1,3}(\/[a-d]{1,2})?$/), h: fc.constantFrom('1', '2', '3'), mt: fc.nat(3) }), { selector: (e) => e.p, maxLength: 30 })
    .map((xs) => xs.map((x) => f(x.p, x.h, x.mt)).sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0)));

  it('applyDelta(prev, treeDelta(prev, next)) is next, for any two trees', () => {
    fc.assert(
      fc.property(entries, entries, (prev, next) => {
        const d = treeDelta(prev, next);
        expect(applyDelta(prev, d.set, d.del)).toEqual(next);
      }),
      { numRuns: 300 },
    );
  });
});

describe('TreeFiles: a tree read only as the stat cache is not checked, and is checked before anything else uses it', () => {
  it('loadForCache takes a crafted tree; load (restore, preview, diff) still refuses it, also once it is cached', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentdesk-trees-'));
    try {
      const crafted = encodeTree({ v: 1, root: '/ws', takenAt: 1, entries: [f('../outside', 'a'.repeat(64))], skipped: [] });
      const id = treeId(crafted);
      writeFileSync(path.join(dir, `${id}.json.gz`), gzipSync(crafted));
      const files = new TreeFiles(dir);
      expect(files.loadForCache(id).entries.map((e) => e.p)).toEqual(['../outside']);
      expect(() => files.load(id)).toThrow(CorruptObjectError);
      expect(() => new TreeFiles(dir).load(id)).toThrow(CorruptObjectError);
      // Not even an entry list: refused by both.
      const broken = JSON.stringify({ v: 1, root: '/ws', takenAt: 1, entries: [42], skipped: [] });
      writeFileSync(path.join(dir, `${treeId(broken)}.json.gz`), gzipSync(broken));
      expect(() => files.loadForCache(treeId(broken))).toThrow(CorruptObjectError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
