/**
 * E7 (pure): after a failed attempt, what the outer loop does next. The loop gathers the facts (classified error,
 * budget, the next ready profile, whether a probe is allowed, the next fallback model) and acts on the answer.
 *
 *   context_overflow      compact (when recovery is wired and its budget lasts), else give up
 *   auth, billing         rotate to the next ready profile, else fall back to the next model
 *   rate_limit            rotate; with no ready profile left: one probe after retry-after (up to the cap) or a
 *                         backoff; retry-after past the cap → fall back instead of sleeping
 *   overloaded            back off (250 ms × 2 ≤ 1 500 ms, jitter 0.2) up to 4 times, then on the next ready
 *                         profile (or the same); then fall back
 *   timeout, server_error back off and retry twice, then fall back
 *   model_not_found, format, unknown → fall back;   aborted → give up
 * The attempt budget (iteration-cap.ts) ends any of these.
 */
import type { FailoverReason } from '../classify.js';
import { backoffDelay } from './backoff.js';

/** Longest server-requested wait the loop sleeps through; past it, it falls back (or gives up). */
export const RETRY_AFTER_CAP_MS = 60_000;
export const MAX_OVERLOAD_BACKOFFS = 4;
export const MAX_TRANSIENT_RETRIES = 2;

export type NextStep =
  | { action: 'rotate'; profileId: string }
  | { action: 'backoff'; waitMs: number; profileId: string | null }
  | { action: 'wait'; waitMs: number; profileId: string | null }
  | { action: 'fallback'; provider: string; model: string }
  | { action: 'compact' }
  | { action: 'give_up'; why: 'retry_limit' | 'exhausted' | 'overflow' | 'aborted' };

export interface DecisionInput {
  reason: FailoverReason;
  retryAfterMs?: number;
  /** Attempts made so far in the run, the failed one included. */
  attempts: number;
  maxIterations: number;
  /** The profile that failed (null: a provider without keys). */
  currentProfile: string | null;
  /** A ready profile of this model not yet tried for it. */
  nextProfile?: string;
  /** When every profile cools for a transient reason and the probe is unused: the profile to probe. */
  probeProfile?: string | null;
  /** Backoff waits already taken for this model. */
  backoffs: number;
  nextModel?: { provider: string; model: string };
  canCompact: boolean;
  random: () => number;
  retryAfterCapMs?: number;
}

export function decideNext(d: DecisionInput): NextStep {
  if (d.reason === 'aborted') return { action: 'give_up', why: 'aborted' };
  if (d.attempts >= d.maxIterations) return { action: 'give_up', why: 'retry_limit' };
  const cap = d.retryAfterCapMs ?? RETRY_AFTER_CAP_MS;
  const fallback = (): NextStep =>
    d.nextModel ? { action: 'fallback', ...d.nextModel } : { action: 'give_up', why: 'exhausted' };
  const delay = () => backoffDelay(d.backoffs + 1, d.random);

  switch (d.reason) {
    case 'context_overflow':
      return d.canCompact ? { action: 'compact' } : { action: 'give_up', why: 'overflow' };
    case 'auth':
    case 'billing':
      return d.nextProfile ? { action: 'rotate', profileId: d.nextProfile } : fallback();
    case 'rate_limit': {
      if (d.nextProfile) return { action: 'rotate', profileId: d.nextProfile };
      if (d.probeProfile === undefined) return fallback();
      if (d.retryAfterMs === undefined) return { action: 'backoff', waitMs: delay(), profileId: d.probeProfile };
      return d.retryAfterMs <= cap ? { action: 'wait', waitMs: d.retryAfterMs, profileId: d.probeProfile } : fallback();
    }
    case 'overloaded': {
      if (d.backoffs >= MAX_OVERLOAD_BACKOFFS) return fallback();
      const profileId = d.nextProfile ?? d.currentProfile;
      const waitMs = delay();
      if (d.retryAfterMs !== undefined && d.retryAfterMs > waitMs) {
        return d.retryAfterMs <= cap ? { action: 'wait', waitMs: d.retryAfterMs, profileId } : fallback();
      }
      return { action: 'backoff', waitMs, profileId };
    }
    case 'timeout':
    case 'server_error':
      return d.backoffs < MAX_TRANSIENT_RETRIES ? { action: 'backoff', waitMs: delay(), profileId: d.currentProfile } : fallback();
    default:
      return fallback();
  }
}
