/** The bench's shared statistics (test/bench/stats.ts): the median, and on/off rounds in alternating order. */
import { describe, expect, it } from 'vitest';
import { median, pairedRounds } from '../bench/stats.js';

describe('median', () => {
  it.each([
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[10, -1, 7, 7, 0], 7],
  ])('%j → %d', (xs, want) => expect(median(xs)).toBe(want));
  it('leaves its input as it was', () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});

describe('pairedRounds', () => {
  it('alternates which side runs first, and gives the medians of the per-round ratio and difference', async () => {
    const calls: string[] = [];
    // Round r: off takes 100 + r, on takes 110 + 2r (differences 10 + r).
    const seen = { on: 0, off: 0 };
    const result = await pairedRounds(
      4,
      async (k) => {
        calls.push(k);
        const r = seen[k]++;
        return k === 'off' ? 100 + r : 110 + 2 * r;
      },
      async () => void calls.push('before'),
    );
    expect(calls.filter((c) => c !== 'before')).toEqual(['off', 'on', 'on', 'off', 'off', 'on', 'on', 'off']);
    expect(calls.filter((c) => c === 'before')).toHaveLength(8);
    expect(result.off).toEqual([100, 101, 102, 103]);
    expect(result.on).toEqual([110, 112, 114, 116]);
    expect(result.added).toBe(11.5); // differences 10, 11, 12, 13
    expect(result.ratio).toBeCloseTo(median([110 / 100, 112 / 101, 114 / 102, 116 / 103]), 12);
  });
});
