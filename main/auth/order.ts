/**
 * E6 profile order (pure): locked (never rotates) › preferred › last good › least recently used; config order
 * breaks ties (profilesFor's order: config.authProfiles, then keychain-only ids, then the built-in env profile),
 * never where a key is stored. Cooling profiles are not "ready": they come last, soonest expiry first, for the
 * one probe the loop may allow when every profile cools for a transient reason.
 */
import type { AuthProfile } from './profiles.js';
import { isCooling, type ProfileState } from './cooldown.js';

export interface OrderedProfiles {
  ready: AuthProfile[];
  cooling: AuthProfile[];
}

export function orderProfiles(profiles: readonly AuthProfile[], states: Readonly<Record<string, ProfileState>>, now: number): OrderedProfiles {
  const locked = profiles.find((p) => p.locked);
  const pool = locked ? [locked] : [...profiles];
  const state = (p: AuthProfile) => states[p.id];
  const lastGood = pool.reduce<AuthProfile | undefined>((best, p) => {
    const at = state(p)?.lastGoodAt;
    if (at === undefined) return best;
    return best === undefined || at > (state(best)?.lastGoodAt ?? 0) ? p : best;
  }, undefined);
  const rank = (p: AuthProfile) => (p.preferred ? 0 : p === lastGood ? 1 : 2);
  const index = new Map(pool.map((p, i) => [p, i]));
  const sorted = [...pool].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (rank(a) === 2 ? (state(a)?.lastUsedAt ?? 0) - (state(b)?.lastUsedAt ?? 0) : 0) ||
      index.get(a)! - index.get(b)!,
  );
  return {
    ready: sorted.filter((p) => !isCooling(state(p), now)),
    cooling: sorted
      .filter((p) => isCooling(state(p), now))
      .sort((a, b) => (state(a)?.cooldownUntil ?? 0) - (state(b)?.cooldownUntil ?? 0) || index.get(a)! - index.get(b)!),
  };
}
