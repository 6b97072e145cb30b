import { describe, expect, it } from 'vitest';
import { activeWindow, cooldownMs, displayState, FAILURE_WINDOW_MS, forKey, isCooling, modelWindows, recordFailure, recordSuccess, type ProfileState } from '../../main/auth/cooldown.js';
import type { FailoverReasonDto } from '../../preload/contract.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

describe('cooldown ladders (E6)', () => {
  it.each<[FailoverReasonDto, number[]]>([
    ['rate_limit', [30 * S, 60 * S, 120 * S, 240 * S, 480 * S]],
    ['overloaded', [30 * S, 60 * S, 300 * S, 300 * S]],
    ['billing', [10 * MIN, 20 * MIN, 40 * MIN, 80 * MIN]],
    ['auth', [10 * MIN, 20 * MIN, 40 * MIN, 60 * MIN, 60 * MIN]],
  ])('%s grows %j', (reason, ladder) => {
    expect(ladder.map((_, i) => cooldownMs(reason, i + 1))).toEqual(ladder);
  });

  it.each<[FailoverReasonDto, number, number]>([
    ['rate_limit', 30, 24 * H],
    ['billing', 30, 24 * H],
    ['auth', 30, H],
  ])('%s caps at the %s-th failure', (reason, n, cap) => {
    expect(cooldownMs(reason, n)).toBe(cap);
  });

  it.each<FailoverReasonDto>(['timeout', 'server_error', 'format', 'context_overflow', 'unknown'])('%s opens no window', (reason) => {
    expect(cooldownMs(reason, 1)).toBeUndefined();
    const s = recordFailure(undefined, { reason, message: 'x', now: 0 });
    expect(isCooling(s, 1)).toBe(false);
    expect(s.lastError).toBe('x');
  });

  it('repeated failures after each window expires climb the ladder', () => {
    let s: ProfileState | undefined;
    let now = 1_000_000;
    const windows: number[] = [];
    for (let i = 0; i < 4; i++) {
      s = recordFailure(s, { reason: 'rate_limit', message: '429', now });
      windows.push(s.cooldownUntil! - now);
      now = s.cooldownUntil! + 1;
    }
    expect(windows).toEqual([30 * S, 60 * S, 120 * S, 240 * S]);
  });

  it('an active window is never extended (a second failure inside it keeps the end time)', () => {
    const a = recordFailure(undefined, { reason: 'rate_limit', message: 'first', now: 0 });
    const b = recordFailure(a, { reason: 'auth', message: 'second', now: 10 * S });
    expect(b.cooldownUntil).toBe(30 * S);
    expect(b.reason).toBe('rate_limit');
    expect(b.lastError).toBe('second');
    expect(b.errorCount).toEqual({ rate_limit: 1, auth: 1 });
  });

  it('retry-after longer than the ladder step sets the window', () => {
    const s = recordFailure(undefined, { reason: 'rate_limit', message: '429', now: 0, retryAfterMs: 90 * S });
    expect(s.cooldownUntil).toBe(90 * S);
  });

  it('counts reset after the 24 h failure window and after a success', () => {
    const a = recordFailure(undefined, { reason: 'billing', message: '402', now: 0 });
    const later = recordFailure(a, { reason: 'billing', message: '402', now: FAILURE_WINDOW_MS + 1 });
    expect(later.cooldownUntil! - (FAILURE_WINDOW_MS + 1)).toBe(10 * MIN);
    const good = recordSuccess(a, 5);
    expect(good).toMatchObject({ lastGoodAt: 5, lastError: '402' });
    expect(good.errorCount).toBeUndefined();
    expect(isCooling(good, 6)).toBe(false);
  });

  it.each<[FailoverReasonDto, 'cooling' | 'disabled']>([
    ['rate_limit', 'cooling'],
    ['overloaded', 'cooling'],
    ['billing', 'disabled'],
    ['auth', 'disabled'],
  ])('%s shows as %s while the window lasts, then ok', (reason, state) => {
    const s = recordFailure(undefined, { reason, message: 'x', now: 0 });
    expect(displayState(s, 1)).toBe(state);
    expect(displayState(s, s.cooldownUntil!)).toBe('ok');
  });

  describe('model-scoped: a rate limit benches the key for its model only (inventory §6)', () => {
    const A = 'p/model-a';
    const B = 'p/model-b';
    it('a 429 on A: cooling for A, not for B, not key-wide; the ladder climbs per model', () => {
      let s = recordFailure(undefined, { reason: 'rate_limit', message: '429 on A', now: 0, model: A });
      expect(isCooling(s, 1, A)).toBe(true);
      expect(isCooling(s, 1, B)).toBe(false);
      expect(isCooling(s, 1)).toBe(false);
      expect(displayState(s, 1)).toBe('ok');
      expect(modelWindows(s, 1)).toEqual([{ model: A, until: 30 * S, reason: 'rate_limit' }]);
      expect(activeWindow(s, 1, A)).toEqual({ until: 30 * S, reason: 'rate_limit' });
      s = recordFailure(s, { reason: 'rate_limit', message: 'again', now: 10 * S, model: A });
      expect(s.models![A]!.cooldownUntil).toBe(30 * S); // an active window is never extended
      s = recordFailure(s, { reason: 'rate_limit', message: 'after', now: 31 * S, model: A });
      expect(s.models![A]!.cooldownUntil).toBe(31 * S + 120 * S); // third within 24 h: 30 s · 2²
      s = recordFailure(s, { reason: 'rate_limit', message: 'on B', now: 32 * S, model: B });
      expect(s.models![B]!.cooldownUntil).toBe(32 * S + 30 * S); // B has its own count
    });

    it('a key-wide reason (billing) still benches every model; the longer window wins', () => {
      const a = recordFailure(undefined, { reason: 'rate_limit', message: '429', now: 0, model: A });
      const b = recordFailure(a, { reason: 'billing', message: '402', now: 1, model: A });
      expect(isCooling(b, 2, B)).toBe(true);
      expect(activeWindow(b, 2, A)).toEqual({ until: 1 + 10 * MIN, reason: 'billing' });
    });

    it('a success on A clears A and the key, and keeps B benched', () => {
      let s = recordFailure(undefined, { reason: 'rate_limit', message: '429', now: 0, model: A });
      s = recordFailure(s, { reason: 'rate_limit', message: '429', now: 0, model: B });
      const good = recordSuccess(s, 5, A);
      expect(isCooling(good, 6, A)).toBe(false);
      expect(isCooling(good, 6, B)).toBe(true);
      expect(recordSuccess(good, 7, B).models).toBeUndefined();
    });

    it('a replaced key starts clean for every model', () => {
      const s = recordFailure(undefined, { reason: 'rate_limit', message: '429', now: 0, model: A, keyId: 'old' });
      expect(forKey(s, 'new')?.models).toBeUndefined();
      expect(forKey(s, 'old')?.models?.[A]).toBeDefined();
    });
  });
});
