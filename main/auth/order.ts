/**
 * E6 profile order (pure): locked (never rotates) › preferred › last good › least recently used; config order
 * breaks ties (profilesFor's order: config.authProfiles, then keychain-only ids, then the built-in env profile),
 * never where a key is stored. Cooling profiles — for this model: a rate limit benches a key for its model only —
 * are not "ready": they come last, soonest expiry first, for the one probe the loop may allow when every profile
 * cools for a probe reason. A locked profile is used even while it cools (as the seed: the locked profile is never
 * skipped for cooldown — it is the only key the person allowed).
 */
import type { FailoverReasonDto } from '../../preload/contract.js';
import type { AuthProfile } from './profiles.js';
import { activeWindow, type ProfileState } from './cooldown.js';

export interface OrderedProfiles {
  ready: AuthProfile[];
  cooling: AuthProfile[];
  /** The window each cooling profile is in for this model (the key's, or the model's). */
  windows: Record<string, { until: number; reason: FailoverReasonDto }>;
}

export function orderProfiles(
  profiles: readonly AuthProfile[],
  states: Readonly<Record<string, ProfileState>>,
  now: number,
  model?: string,
): OrderedProfiles {
  const locked = profiles.find((p) => p.locked);
  if (locked) return { ready: [locked], cooling: [], windows: {} };
  const state = (p: AuthProfile) => states[p.id];
  const lastGood = profiles.reduce<AuthProfile | undefined>((best, p) => {
    const at = state(p)?.lastGoodAt;
    if (at === undefined) return best;
    return best === undefined || at > (state(best)?.lastGoodAt ?? 0) ? p : best;
  }, undefined);
  const rank = (p: AuthProfile) => (p.preferred ? 0 : p === lastGood ? 1 : 2);
  const index = new Map(profiles.map((p, i) => [p, i]));
  const sorted = [...profiles].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (rank(a) === 2 ? (state(a)?.lastUsedAt ?? 0) - (state(b)?.lastUsedAt ?? 0) : 0) ||
      index.get(a)! - index.get(b)!,
  );
  const windows: OrderedProfiles['windows'] = {};
  for (const p of sorted) {
    const w = activeWindow(state(p), now, model);
    if (w) windows[p.id] = w;
  }
  return {
    ready: sorted.filter((p) => !windows[p.id]),
    cooling: sorted.filter((p) => windows[p.id]).sort((a, b) => windows[a.id]!.until - windows[b.id]!.until || index.get(a)! - index.get(b)!),
    windows,
  };
}
