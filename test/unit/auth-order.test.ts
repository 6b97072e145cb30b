import { describe, expect, it } from 'vitest';
import { orderProfiles } from '../../main/auth/order.js';
import type { AuthProfile } from '../../main/auth/profiles.js';
import type { ProfileState } from '../../main/auth/cooldown.js';

const p = (id: string, extra: Partial<AuthProfile> = {}): AuthProfile => ({ id: `a:${id}`, provider: 'a', source: 'env', apiKeyEnv: id.toUpperCase(), ...extra });
const NOW = 1_000_000;

describe('orderProfiles (E6): locked › preferred › last good › least recently used, config order breaks ties', () => {
  it.each<[string, AuthProfile[], Record<string, ProfileState>, string[], string[]]>([
    ['config order when nothing is known', [p('x'), p('y', { source: 'keychain' }), p('z')], {}, ['a:x', 'a:y', 'a:z'], []],
    ['least recently used first', [p('x'), p('y'), p('z')], { 'a:x': { lastUsedAt: 30 }, 'a:y': { lastUsedAt: 10 }, 'a:z': { lastUsedAt: 20 } }, ['a:y', 'a:z', 'a:x'], []],
    ['never used before used', [p('x'), p('y')], { 'a:x': { lastUsedAt: 5 } }, ['a:y', 'a:x'], []],
    ['last good before the rest', [p('x'), p('y'), p('z')], { 'a:z': { lastGoodAt: 50, lastUsedAt: 50 }, 'a:y': { lastGoodAt: 40 } }, ['a:z', 'a:x', 'a:y'], []],
    ['preferred before last good', [p('x'), p('y', { preferred: true })], { 'a:x': { lastGoodAt: 50 } }, ['a:y', 'a:x'], []],
    ['locked alone, never rotates', [p('x'), p('y', { locked: true }), p('z', { preferred: true })], { 'a:x': { lastGoodAt: 9 } }, ['a:y'], []],
    // The seed: the locked profile is never skipped for cooldown — it is the only key allowed.
    ['locked and cooling: still used', [p('x'), p('y', { locked: true })], { 'a:y': { cooldownUntil: NOW + 5, reason: 'billing' } }, ['a:y'], []],
    [
      'cooling skipped, listed soonest expiry first',
      [p('x'), p('y'), p('z')],
      { 'a:x': { cooldownUntil: NOW + 500 }, 'a:y': { cooldownUntil: NOW + 100 }, 'a:z': { cooldownUntil: NOW - 1 } },
      ['a:z'],
      ['a:y', 'a:x'],
    ],
    ['a preferred profile in cooldown is skipped', [p('x', { preferred: true }), p('y')], { 'a:x': { cooldownUntil: NOW + 1 } }, ['a:y'], ['a:x']],
  ])('%s', (_name, profiles, states, ready, cooling) => {
    const out = orderProfiles(profiles, states, NOW);
    expect(out.ready.map((x) => x.id)).toEqual(ready);
    expect(out.cooling.map((x) => x.id)).toEqual(cooling);
  });

  it.each<[string, Record<string, ProfileState>, string | undefined, string[], string[]]>([
    ['a rate limit on model A benches the key for A', { 'a:x': { models: { 'a/A': { cooldownUntil: NOW + 5, reason: 'rate_limit' } } } }, 'a/A', ['a:y'], ['a:x']],
    ['… and leaves it ready for model B', { 'a:x': { models: { 'a/A': { cooldownUntil: NOW + 5, reason: 'rate_limit' } } } }, 'a/B', ['a:x', 'a:y'], []],
    ['a key-wide window (billing) benches it for every model', { 'a:x': { cooldownUntil: NOW + 5, reason: 'billing' } }, 'a/B', ['a:y'], ['a:x']],
    ['an expired model window is over', { 'a:x': { models: { 'a/A': { cooldownUntil: NOW - 1 } } } }, 'a/A', ['a:x', 'a:y'], []],
  ])('per model: %s', (_name, states, model, ready, cooling) => {
    const out = orderProfiles([p('x'), p('y')], states, NOW, model);
    expect(out.ready.map((x) => x.id)).toEqual(ready);
    expect(out.cooling.map((x) => x.id)).toEqual(cooling);
    for (const id of cooling) expect(out.windows[id]).toBeDefined();
  });
});
