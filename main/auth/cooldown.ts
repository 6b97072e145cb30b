/**
 * E6 cooldowns (pure): what one failure or success does to a profile's persisted state. Windows grow with
 * repeated failures of the same reason inside a 24 h failure window and never extend an active window:
 *   rate_limit  30 s · 2^(n−1), at most 24 h (and at least the server's retry-after)
 *   overloaded  30 s → 60 s → 300 s
 *   billing     10 min · 2^(n−1), at most 24 h   (state "disabled")
 *   auth        10 min · 2^(n−1), at most 1 h    (state "disabled")
 * Other reasons (timeouts, server errors, bad requests) are not the key's fault: no cooldown, only the last error.
 * A rate limit is the model's (inventory §6: a model-scoped cooldown): it benches the key for that model only
 * (`models[ref]`), so a 429 on one model leaves the key usable for the others. The other reasons bench the key.
 * A success clears the counts and the windows (the key's, and that model's) and becomes the profile's "last good".
 * A window belongs to the key that failed (keyId): when the person replaces the key, the profile starts clean.
 */
import type { FailoverReasonDto } from '../../preload/contract.js';

/** A window that benches the key for one model (a rate limit), with its own count. */
export interface ModelWindow {
  cooldownUntil?: number;
  reason?: FailoverReasonDto;
  errorCount?: number;
  lastFailureAt?: number;
}

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
  /** Model-scoped windows by "provider/model" (rate limits). */
  models?: Record<string, ModelWindow>;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
export const FAILURE_WINDOW_MS = 24 * HOUR;
const OVERLOAD_LADDER = [30 * SECOND, 60 * SECOND, 300 * SECOND] as const;

/**
 * When every profile cools for one of these, one probe is allowed (the seed's allowTransientCooldownProbe: rate
 * limit, overload, billing — a quota that was topped up clears without a sign; a rejected key does not).
 */
export const PROBE_REASONS: ReadonlySet<FailoverReasonDto> = new Set(['rate_limit', 'overloaded', 'billing']);
/** Reasons whose window is the model's, not the key's. */
export const MODEL_SCOPED: ReadonlySet<FailoverReasonDto> = new Set(['rate_limit']);

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
  const { cooldownUntil: _u, reason: _r, errorCount: _c, keyId: _k, models: _m, ...rest } = s;
  return rest;
}

/** The window that benches the key for `model` now (the key's own, or the model's, whichever ends later). */
export function activeWindow(s: ProfileState | undefined, now: number, model?: string): { until: number; reason: FailoverReasonDto } | undefined {
  const key = (s?.cooldownUntil ?? 0) > now ? { until: s!.cooldownUntil!, reason: s!.reason ?? 'unknown' } : undefined;
  const m = model ? s?.models?.[model] : undefined;
  const scoped = m && (m.cooldownUntil ?? 0) > now ? { until: m.cooldownUntil!, reason: m.reason ?? 'rate_limit' } : undefined;
  if (!key) return scoped;
  if (!scoped) return key;
  return scoped.until > key.until ? scoped : key;
}

/** Cooling for `model` (omit it: for every model, i.e. the key's own window). */
export const isCooling = (s: ProfileState | undefined, now: number, model?: string): boolean => activeWindow(s, now, model) !== undefined;

export function recordFailure(
  s: ProfileState | undefined,
  f: { reason: FailoverReasonDto; message: string; now: number; retryAfterMs?: number; keyId?: string; model?: string },
): ProfileState {
  if (f.model && MODEL_SCOPED.has(f.reason)) return recordModelFailure(s ?? {}, { ...f, model: f.model });
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

/** A model-scoped failure: the window and its count live in `models[model]`; the key stays usable for the others. */
function recordModelFailure(prev: ProfileState, f: { reason: FailoverReasonDto; message: string; now: number; retryAfterMs?: number; keyId?: string; model: string }): ProfileState {
  const old = prev.models?.[f.model] ?? {};
  const fresh = old.lastFailureAt === undefined || f.now - old.lastFailureAt > FAILURE_WINDOW_MS;
  const n = (fresh ? 0 : (old.errorCount ?? 0)) + 1;
  const window = cooldownMs(f.reason, n)!;
  const active = (old.cooldownUntil ?? 0) > f.now; // an active window is never extended
  const next: ModelWindow = active
    ? { ...old, errorCount: n, lastFailureAt: f.now }
    : { cooldownUntil: f.now + Math.max(window, f.retryAfterMs ?? 0), reason: f.reason, errorCount: n, lastFailureAt: f.now };
  return { ...prev, lastFailureAt: f.now, lastError: f.message, ...(f.keyId ? { keyId: f.keyId } : {}), models: { ...prev.models, [f.model]: next } };
}

/** A success: the key's counts and window cleared, and those of the model it succeeded on (`model`). */
export function recordSuccess(s: ProfileState | undefined, now: number, model?: string): ProfileState {
  const { errorCount: _c, cooldownUntil: _u, reason: _r, models, ...rest } = s ?? {};
  const others = models && model ? Object.fromEntries(Object.entries(models).filter(([m]) => m !== model)) : models;
  return { ...rest, ...(others && Object.keys(others).length > 0 ? { models: others } : {}), lastGoodAt: now, lastUsedAt: Math.max(now, rest.lastUsedAt ?? 0) };
}

export const recordUse = (s: ProfileState | undefined, now: number): ProfileState => ({ ...s, lastUsedAt: now });

/** The state shown to people: cooling (transient), disabled (billing/auth) or ok — the key's own window. */
export function displayState(s: ProfileState | undefined, now: number): 'ok' | 'cooling' | 'disabled' {
  if (!isCooling(s, now)) return 'ok';
  return s?.reason === 'billing' || s?.reason === 'auth' ? 'disabled' : 'cooling';
}

/** The models the key is benched for now (rate limits), soonest end first. */
export function modelWindows(s: ProfileState | undefined, now: number): { model: string; until: number; reason: FailoverReasonDto }[] {
  return Object.entries(s?.models ?? {})
    .filter(([, w]) => (w.cooldownUntil ?? 0) > now)
    .map(([model, w]) => ({ model, until: w.cooldownUntil!, reason: w.reason ?? 'rate_limit' }))
    .sort((a, b) => a.until - b.until);
}
