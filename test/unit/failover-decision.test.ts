import { describe, expect, it } from 'vitest';
import { decideNext, RETRY_AFTER_CAP_MS, type DecisionInput, type NextStep } from '../../main/engine/run/failover-decision.js';
import { maxIterations } from '../../main/engine/run/iteration-cap.js';
import { backoffDelay } from '../../main/engine/run/backoff.js';

const base: DecisionInput = {
  reason: 'unknown',
  attempts: 1,
  maxIterations: 32,
  currentProfile: 'p:a',
  backoffs: 0,
  canCompact: false,
  random: () => 0,
};
const next = { provider: 'openai', model: 'gpt-4o' };

describe('decideNext (E7)', () => {
  it.each<[string, Partial<DecisionInput>, NextStep]>([
    ['rate limit with another ready profile rotates', { reason: 'rate_limit', nextProfile: 'p:b' }, { action: 'rotate', profileId: 'p:b' }],
    ['rate limit with retry-after rotates rather than sleeps', { reason: 'rate_limit', nextProfile: 'p:b', retryAfterMs: 5000 }, { action: 'rotate', profileId: 'p:b' }],
    ['rate limit, all cooling, probe allowed, retry-after under the cap → wait then probe', { reason: 'rate_limit', probeProfile: 'p:a', retryAfterMs: 30_000 }, { action: 'wait', waitMs: 30_000, profileId: 'p:a' }],
    ['rate limit, retry-after exactly the cap → wait', { reason: 'rate_limit', probeProfile: 'p:a', retryAfterMs: RETRY_AFTER_CAP_MS }, { action: 'wait', waitMs: RETRY_AFTER_CAP_MS, profileId: 'p:a' }],
    ['rate limit, retry-after past the cap → fall back instead of sleeping', { reason: 'rate_limit', probeProfile: 'p:a', retryAfterMs: RETRY_AFTER_CAP_MS + 1, nextModel: next }, { action: 'fallback', ...next }],
    ['rate limit, retry-after past the cap, no fallback → give up', { reason: 'rate_limit', probeProfile: 'p:a', retryAfterMs: 120_000 }, { action: 'give_up', why: 'exhausted' }],
    ['rate limit, no retry-after, probe → backoff then probe', { reason: 'rate_limit', probeProfile: 'p:a' }, { action: 'backoff', waitMs: 250, profileId: 'p:a' }],
    ['rate limit on a keyless provider probes the same (null)', { reason: 'rate_limit', currentProfile: null, probeProfile: null }, { action: 'backoff', waitMs: 250, profileId: null }],
    ['rate limit, probe used, fallback exists → fallback', { reason: 'rate_limit', nextModel: next }, { action: 'fallback', ...next }],
    ['auth rotates', { reason: 'auth', nextProfile: 'p:b' }, { action: 'rotate', profileId: 'p:b' }],
    ['auth on the last profile falls back', { reason: 'auth', nextModel: next }, { action: 'fallback', ...next }],
    ['billing on the last profile with no fallback gives up', { reason: 'billing' }, { action: 'give_up', why: 'exhausted' }],
    ['overloaded backs off first, then the next profile', { reason: 'overloaded', nextProfile: 'p:b' }, { action: 'backoff', waitMs: 250, profileId: 'p:b' }],
    ['overloaded, 3rd backoff', { reason: 'overloaded', backoffs: 2 }, { action: 'backoff', waitMs: 1000, profileId: 'p:a' }],
    ['overloaded with a longer retry-after waits for it', { reason: 'overloaded', retryAfterMs: 2000 }, { action: 'wait', waitMs: 2000, profileId: 'p:a' }],
    ['overloaded after 4 backoffs falls back', { reason: 'overloaded', backoffs: 4, nextModel: next }, { action: 'fallback', ...next }],
    ['server error retries the same profile', { reason: 'server_error', nextProfile: 'p:b' }, { action: 'backoff', waitMs: 250, profileId: 'p:a' }],
    ['timeout after 2 retries falls back', { reason: 'timeout', backoffs: 2, nextModel: next }, { action: 'fallback', ...next }],
    ['overflow compacts when recovery is wired', { reason: 'context_overflow', canCompact: true }, { action: 'compact' }],
    ['overflow without recovery gives up', { reason: 'context_overflow', nextModel: next }, { action: 'give_up', why: 'overflow' }],
    ['model not found falls back', { reason: 'model_not_found', nextModel: next }, { action: 'fallback', ...next }],
    ['format error without fallback gives up', { reason: 'format' }, { action: 'give_up', why: 'exhausted' }],
    ['aborted gives up', { reason: 'aborted', nextProfile: 'p:b', nextModel: next }, { action: 'give_up', why: 'aborted' }],
    ['the attempt budget ends everything', { reason: 'rate_limit', nextProfile: 'p:b', attempts: 32 }, { action: 'give_up', why: 'retry_limit' }],
  ])('%s', (_name, input, expected) => {
    expect(decideNext({ ...base, ...input })).toEqual(expected);
  });

  it('backs off 250 → 500 → 1000 → 1500 ms with jitter 0.2, never above 1500', () => {
    const waits = (random: number) =>
      [0, 1, 2, 3].map((backoffs) => (decideNext({ ...base, reason: 'overloaded', backoffs, random: () => random }) as { waitMs: number }).waitMs);
    expect(waits(0)).toEqual([250, 500, 1000, 1500]);
    expect(waits(0.5)).toEqual([275, 550, 1100, 1500]);
    expect(waits(0.999)).toEqual([300, 600, 1200, 1500]);
    expect(backoffDelay(9, () => 0.999)).toBe(1500);
  });
});

describe('maxIterations: clamp(24 + 8 × max(1, profiles), 32, 160)', () => {
  it.each([
    [0, 32],
    [1, 32],
    [2, 40],
    [5, 64],
    [17, 160],
    [100, 160],
    [Number.NaN, 32],
  ])('%s profiles → %s', (profiles, cap) => {
    expect(maxIterations(profiles)).toBe(cap);
  });
});
