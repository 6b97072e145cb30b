/**
 * X4: list prices of well-known models (USD per million tokens; the providers' published prices), used when a model
 * entry has no `cost` of its own — whatever provider name it is configured under (an OpenRouter-style
 * "anthropic/claude-sonnet-4-5" or a dated "claude-sonnet-4-5-20250929" id finds its row too). A `cost` in the
 * model's config.json entry always wins. Cache prices missing here default to the input price.
 */
import type { ModelCost } from '../providers/types.js';

export const KNOWN_PRICES: Readonly<Record<string, ModelCost>> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
};

/** The list price of a model id, or undefined for a model not in the table (it is then not priced). */
export function knownPrice(modelId: string): ModelCost | undefined {
  const id = modelId.toLowerCase();
  const base = id.slice(id.lastIndexOf('/') + 1);
  for (const candidate of [base, base.replace(/-\d{8}$/, ''), base.replace(/-latest$/, ''), base.replace(/-\d{4}-\d{2}-\d{2}$/, '')]) {
    if (Object.hasOwn(KNOWN_PRICES, candidate)) return KNOWN_PRICES[candidate];
  }
  return undefined;
}
