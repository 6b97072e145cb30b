import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../../main/engine/messages.js';
import { UsageAccumulator, addBilling, billingOf, costOf, emptyBilling, type Billing } from '../../main/engine/attempt/usage.js';

/** One call's usage; total = its four buckets. */
const call = (input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  total: input + output + cacheRead + cacheWrite,
});

// Inventory §21 item 14: three calls whose billing sums are input 370, output 120, cacheRead 246,000, total 251,490.
const THREE_CALLS = [call(200, 40, 80_000, 5_000), call(100, 50, 82_000), call(70, 30, 84_000)];

describe('UsageAccumulator (E17: last prompt + accumulated output)', () => {
  it.each<[string, Usage[], Usage]>([
    ['no calls', [], emptyUsage()],
    ['one call', [call(100, 10, 5, 3)], call(100, 10, 5, 3)],
    // Inventory §15: tool loop 100/10 + 42/7 (OpenClaw reports the sum 142/17/159).
    ['§15 tool loop', [call(100, 10), call(42, 7)], { input: 42, output: 17, cacheRead: 0, cacheWrite: 0, total: 59 }],
    [
      '§21 item 14: cacheRead is not summed',
      THREE_CALLS,
      { input: 70, output: 120, cacheRead: 84_000, cacheWrite: 0, total: 84_190 },
    ],
    [
      'a call without prompt tokens keeps the previous snapshot',
      [call(500, 20, 1_000, 200), call(0, 4)],
      { input: 500, output: 24, cacheRead: 1_000, cacheWrite: 200, total: 1_724 },
    ],
    [
      'a reported total is recomputed, not trusted',
      [{ ...call(10, 1), total: 999 }, { ...call(20, 2), total: 0 }],
      { input: 20, output: 3, cacheRead: 0, cacheWrite: 0, total: 23 },
    ],
  ])('%s', (_name, calls, expected) => {
    const acc = new UsageAccumulator();
    for (const c of calls) acc.add(c);
    expect(acc.result()).toEqual(expected);
    expect(acc.calls).toBe(calls.length);
  });

  it('result() is a snapshot: later calls do not change an earlier result', () => {
    const acc = new UsageAccumulator();
    acc.add(call(1, 1));
    const first = acc.result();
    acc.add(call(5, 5));
    expect(first).toEqual(call(1, 1));
    expect(acc.result()).toEqual({ input: 5, output: 6, cacheRead: 0, cacheWrite: 0, total: 11 });
  });
});

describe('UsageAccumulator.context(): the conversation\'s size now', () => {
  it.each<[string, Usage[], number]>([
    ['no calls', [], 0],
    ['the last call\'s prompt and its reply (not the earlier replies: they are in that prompt)', [call(100, 10), call(120, 7, 30)], 157],
    ['a call without prompt tokens keeps the previous snapshot', [call(500, 20), call(0, 4)], 520],
  ])('%s', (_name, calls, expected) => {
    const acc = new UsageAccumulator();
    for (const c of calls) acc.add(c);
    expect(acc.context()).toBe(expected);
  });
});

describe('billing: every call summed, cost where priced (addBilling, billingOf, costOf)', () => {
  const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const billed = (u: Usage, priced = true) => billingOf(u, costOf(u, priced ? PRICE : undefined));
  it.each<[string, Billing[], Omit<Billing, 'cost'> & { cost?: number }]>([
    ['nothing', [], { ...emptyUsage(), calls: 0, cost: 0 }],
    ['§15 tool loop sums to 142/17/159', [billed(call(100, 10)), billed(call(42, 7))], { ...call(142, 17), total: 159, calls: 2, cost: (142 * 3 + 17 * 15) / 1e6 }],
    [
      '§21 item 14 sums (the context-style run usage is 84 190; the bill is 251 490 + cache writes)',
      THREE_CALLS.map((u) => billed(u)),
      { input: 370, output: 120, cacheRead: 246_000, cacheWrite: 5_000, total: 251_490, calls: 3, cost: (370 * 3 + 120 * 15 + 246_000 * 0.3 + 5_000 * 3.75) / 1e6 },
    ],
    ['one unpriced call makes the cost unknown', [billed(call(10, 1)), billed(call(10, 1), false)], { ...call(20, 2), calls: 2 }],
    ['totals kept before costs were (tokens, no cost) stay unknown', [{ ...call(5, 5), calls: 0 } as Billing, billed(call(1, 1))], { ...call(6, 6), calls: 1 }],
  ])('%s', (_name, bills, expected) => {
    const sum = bills.reduce(addBilling, emptyBilling());
    expect(sum).toEqual(expected.cost === undefined ? expected : { ...expected, cost: expect.closeTo(expected.cost, 12) });
    if (expected.cost === undefined) expect(sum.cost).toBeUndefined();
  });

  it.each([
    ['unpriced', undefined, call(10, 10), undefined],
    ['cache buckets at their own price', PRICE, call(1_000_000, 0, 1_000_000, 1_000_000), 3 + 0.3 + 3.75],
    ['cache buckets default to the input price', { input: 2, output: 8 }, call(0, 1_000_000, 1_000_000, 0), 8 + 2],
  ])('costOf: %s', (_name, price, u, expected) => {
    const cost = costOf(u, price);
    if (expected === undefined) expect(cost).toBeUndefined();
    else expect(cost).toBeCloseTo(expected, 9);
  });

  it('does not mutate its arguments', () => {
    const a = billed(call(1, 2));
    const b = billed(call(3, 4));
    addBilling(a, b);
    expect(a).toEqual(billed(call(1, 2)));
  });
});
