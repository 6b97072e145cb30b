/**
 * Prices per million tokens (USD) for the models whose price is known, and the cost of a run's usage.
 * Edit the table to add or correct a model. A model missing from it has no cost shown — never a guessed one.
 */
import type { UsageDto } from '../../../preload/contract.js';

export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Keys are "provider/model" or a bare model id (matched for any provider that serves it). */
export const DEFAULT_PRICES: Record<string, Price> = {
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4-0': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'demo/agent': { input: 0, output: 0 },
};

export function priceFor(ref: string): Price | undefined {
  const id = ref.includes('/') ? ref.slice(ref.indexOf('/') + 1) : ref;
  return DEFAULT_PRICES[ref] ?? DEFAULT_PRICES[id];
}

/** Cost in USD, or undefined when the model's price is unknown. */
export function costOf(usage: UsageDto, ref: string): number | undefined {
  const p = priceFor(ref);
  if (!p) return undefined;
  const m = 1_000_000;
  return (
    (usage.input * p.input + usage.output * p.output + usage.cacheRead * (p.cacheRead ?? p.input) + usage.cacheWrite * (p.cacheWrite ?? p.input)) / m
  );
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}
