/** What the bench's rows share: the median, and an on/off comparison measured in paired rounds. */

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface Paired {
  on: number[];
  off: number[];
  /** Median of the rounds' on/off ratios (a round's two runs see the same machine). */
  ratio: number;
  /** Median of the rounds' differences, in the unit `run` returns. */
  added: number;
}

/**
 * `rounds` rounds of `run('off')` and `run('on')`, the order alternating each round (neither side always runs first,
 * after the other has warmed the caches), `before` awaited before each run and not timed.
 */
export async function pairedRounds(rounds: number, run: (k: 'on' | 'off') => Promise<number>, before?: () => Promise<void>): Promise<Paired> {
  const on: number[] = [];
  const off: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    const t: Partial<Record<'on' | 'off', number>> = {};
    for (const k of order) {
      await before?.();
      t[k] = await run(k);
    }
    on.push(t.on!);
    off.push(t.off!);
    ratios.push(t.on! / t.off!);
  }
  return { on, off, ratio: median(ratios), added: median(on.map((x, r) => x - off[r]!)) };
}
