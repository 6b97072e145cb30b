/** Reactive overflow recovery (inventory §9): compact ≤ 3 per run, then truncate once, then give up. */
import { describe, expect, it } from 'vitest';
import { OverflowRecovery } from '../../main/engine/attempt/overflow-recovery.js';

describe('OverflowRecovery', () => {
  it('compacts three times, truncates once, then gives up', () => {
    const r = new OverflowRecovery();
    expect(Array.from({ length: 6 }, () => r.next())).toEqual(['compact', 'compact', 'compact', 'truncate', 'give_up', 'give_up']);
    expect(r.compactions).toBe(3);
  });

  it('a compaction with nothing to summarise does not spend the budget on more no-op compactions', () => {
    const r = new OverflowRecovery();
    expect(r.next()).toBe('compact');
    r.nothingToCompact();
    expect(r.compactions).toBe(0);
    expect([r.next(), r.next()]).toEqual(['truncate', 'give_up']);
  });

  it.each([
    [0, ['truncate', 'give_up']],
    [1, ['compact', 'truncate', 'give_up']],
  ])('max %i compactions', (max, steps) => {
    const r = new OverflowRecovery(max);
    expect(steps.map(() => r.next())).toEqual(steps);
  });
});
