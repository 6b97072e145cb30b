/** E7: the outer loop's attempt budget, clamp(24 + 8 × max(1, profiles), 32, 160): one profile → 32. */
export const MIN_ITERATIONS = 32;
export const MAX_ITERATIONS = 160;

export function maxIterations(profiles: number): number {
  const n = Number.isFinite(profiles) ? Math.max(1, Math.floor(profiles)) : 1;
  return Math.min(MAX_ITERATIONS, Math.max(MIN_ITERATIONS, 24 + 8 * n));
}
