/** X2 delta trees: treeDelta / applyDelta (table and property: applying the delta gives the next tree exactly). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDelta, treeDelta } from '../../main/checkpoints/tree-files.js';
import type { TreeEntry } from '../../main/checkpoints/tree.js';

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
