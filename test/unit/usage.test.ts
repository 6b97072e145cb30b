import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../../main/engine/messages.js';
import { UsageAccumulator, addUsage } from '../../main/engine/attempt/usage.js';

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

describe('addUsage (per-session totals, field-wise sum)', () => {
  it.each<[string, Usage[], Usage]>([
    ['§15 tool loop sums to 142/17/159', [call(100, 10), call(42, 7)], { ...call(142, 17), total: 159 }],
    [
      '§21 item 14 sums',
      THREE_CALLS,
      { input: 370, output: 120, cacheRead: 246_000, cacheWrite: 5_000, total: 251_490 },
    ],
    ['identity', [call(3, 4, 5, 6), emptyUsage()], call(3, 4, 5, 6)],
    [
      'run results add up across runs',
      [
        { input: 42, output: 17, cacheRead: 0, cacheWrite: 0, total: 59 },
        { input: 70, output: 120, cacheRead: 84_000, cacheWrite: 0, total: 84_190 },
      ],
      { input: 112, output: 137, cacheRead: 84_000, cacheWrite: 0, total: 84_249 },
    ],
  ])('%s', (_name, usages, expected) => {
    expect(usages.reduce(addUsage, emptyUsage())).toEqual(expected);
  });

  it('does not mutate its arguments', () => {
    const a = call(1, 2);
    const b = call(3, 4);
    addUsage(a, b);
    expect(a).toEqual(call(1, 2));
    expect(b).toEqual(call(3, 4));
  });
});
