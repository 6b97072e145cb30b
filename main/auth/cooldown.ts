/**
 * E6 cooldowns (pure): what one failure or success does to a profile's persisted state. Windows grow with
 * repeated failures of the same reason inside a 24 h failure window and never extend an active window:
 *   rate_limit  30 s · 2^(n−1), at most 24 h (and at least the server's retry-after)
 *   overloaded  30 s → 60 s → 300 s
 *   billing     10 min · 2^(n−1), at most 24 h   (state "disabled")
 *   auth        10 min · 2^(n−1), at most 1 h    (state "disabled")
 * Other reasons (timeouts, server errors, bad requests) are not the key's fault: no cooldown, only the last error.
 * A success clears the counts and any window and becomes the profile's "last good". A window belongs to the key
 * that failed (keyId): when the person replaces the key, the profile starts clean (forKey).
 */
import type { FailoverReasonDto } from '../../preload/contract.js';

export interface ProfileState {
  cooldownUntil?: number;
  /** Why the current (or last) window was opened. */
  reason?: FailoverReasonDto;
  /** Failures per reason inside the failure window. */
  errorCount?: Partial<Record<FailoverReasonDto, number>>;
  lastFailureAt?: number;
  lastGoodAt?: number;
  lastUsedAt?: number;
  lastError?: string;
  /** Fingerprint of the key that failed (keyFingerprint): a changed key is not held to the old key's window. */
  keyId?: string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
export const FAILURE_WINDOW_MS = 24 * HOUR;
const OVERLOAD_LADDER = [30 * SECOND, 60 * SECOND, 300 * SECOND] as const;

/** Reasons that open a cooldown window. */
export const COOLDOWN_REASONS: ReadonlySet<FailoverReasonDto> = new Set(['rate_limit', 'overloaded', 'billing', 'auth']);
/** Reasons that clear by themselves: when every profile cools for one of these, one probe is allowed. */
export const TRANSIENT_COOLDOWN: ReadonlySet<FailoverReasonDto> = new Set(['rate_limit', 'overloaded']);

/** Window for the n-th failure (1-based) of `reason`, or undefined when the reason opens none. */
export function cooldownMs(reason: FailoverReasonDto, n: number): number | undefined {
  const k = Math.max(1, Math.floor(n));
  const doubling = (base: number, cap: number) => Math.min(cap, base * 2 ** Math.min(k - 1, 30));
  switch (reason) {
    case 'rate_limit':
      return doubling(30 * SECOND, 24 * HOUR);
    case 'overloaded':
      return OVERLOAD_LADDER[Math.min(k, OVERLOAD_LADDER.length) - 1];
    case 'billing':
      return doubling(10 * MINUTE, 24 * HOUR);
    case 'auth':
      return doubling(10 * MINUTE, HOUR);
    default:
      return undefined;
  }
}

/** The state as it applies to the key the profile has now: a replaced key starts clean (the person fixed it). */
export function forKey(s: ProfileState | undefined, keyId: string | undefined): ProfileState | undefined {
  if (!s?.keyId || !keyId || s.keyId === keyId) return s;
  const { cooldownUntil: _u, reason: _r, errorCount: _c, keyId: _k, ...rest } = s;
  return rest;
}

export const isCooling = (s: ProfileState | undefined, now: number): boolean => (s?.cooldownUntil ?? 0) > now;

export function recordFailure(
  s: ProfileState | undefined,
  f: { reason: FailoverReasonDto; message: string; now: number; retryAfterMs?: number; keyId?: string },
): ProfileState {
  const prev = s ?? {};
  const fresh = prev.lastFailureAt === undefined || f.now - prev.lastFailureAt > FAILURE_WINDOW_MS;
  const counts = { ...(fresh ? {} : prev.errorCount) };
  const n = (counts[f.reason] ?? 0) + 1;
  counts[f.reason] = n;
  const next: ProfileState = { ...prev, errorCount: counts, lastFailureAt: f.now, lastError: f.message, ...(f.keyId ? { keyId: f.keyId } : {}) };
  const window = cooldownMs(f.reason, n);
  if (window === undefined || isCooling(prev, f.now)) return next; // an active window is never extended
  next.cooldownUntil = f.now + Math.max(window, f.retryAfterMs ?? 0);
  next.reason = f.reason;
  return next;
}

export function recordSuccess(s: ProfileState | undefined, now: number): ProfileState {
  const { errorCount: _c, cooldownUntil: _u, reason: _r, ...rest } = s ?? {};
  return { ...rest, lastGoodAt: now, lastUsedAt: Math.max(now, rest.lastUsedAt ?? 0) };
}

export const recordUse = (s: ProfileState | undefined, now: number): ProfileState => ({ ...s, lastUsedAt: now });

/** The state shown to people: cooling (transient), disabled (billing/auth) or ok. */
export function displayState(s: ProfileState | undefined, now: number): 'ok' | 'cooling' | 'disabled' {
  if (!isCooling(s, now)) return 'ok';
  return s?.reason === 'billing' || s?.reason === 'auth' ? 'disabled' : 'cooling';
}
