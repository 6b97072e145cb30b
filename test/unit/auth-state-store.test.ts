import { mkdir, mkdtemp, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthStateStore } from '../../main/auth/state-store.js';
import { recordFailure, recordUse } from '../../main/auth/cooldown.js';

const tempFile = async () => join(await mkdtemp(join(tmpdir(), 'agentdesk-authstate-')), 'auth-state.json');

describe('AuthStateStore (E6 persisted state)', () => {
  it('starts empty, persists updates as one JSON file, leaves no temp files', async () => {
    const file = await tempFile();
    const store = new AuthStateStore(file);
    expect(await store.read()).toEqual({});
    await store.update('a:x', (s) => recordFailure(s, { reason: 'rate_limit', message: '429', now: 1000 }));
    await store.update('a:y', (s) => recordUse(s, 2000));
    const again = new AuthStateStore(file); // another process sees it
    expect(await again.read()).toEqual({
      'a:x': { cooldownUntil: 31_000, reason: 'rate_limit', errorCount: { rate_limit: 1 }, lastFailureAt: 1000, lastError: '429' },
      'a:y': { lastUsedAt: 2000 },
    });
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(1);
    expect((await readdir(join(file, '..'))).sort()).toEqual(['auth-state.json']);
  });

  it('loses no update under concurrent writers (separate store instances, as separate processes would be)', async () => {
    const file = await tempFile();
    const stores = Array.from({ length: 4 }, () => new AuthStateStore(file));
    await Promise.all(
      stores.flatMap((store, i) =>
        Array.from({ length: 10 }, (_, j) => store.update(`a:${i}`, (s) => ({ ...s, lastUsedAt: (s?.lastUsedAt ?? 0) + 1, lastError: `w${j}` }))),
      ),
    );
    const state = await new AuthStateStore(file).read();
    expect(Object.keys(state).sort()).toEqual(['a:0', 'a:1', 'a:2', 'a:3']);
    for (const s of Object.values(state)) expect(s.lastUsedAt).toBe(10);
  });

  it('takes over the lock of a crashed holder once it is stale', async () => {
    const file = await tempFile();
    await mkdir(`${file}.lock`); // a crashed process left its lock behind
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, old, old);
    const store = new AuthStateStore(file, { staleMs: 2000 });
    await store.update('a:x', (s) => recordUse(s, 5));
    expect((await store.read())['a:x']).toEqual({ lastUsedAt: 5 });
  });

  it.each([
    ['not JSON', '{"version":1,"profiles":{'],
    ['wrong shape', '{"version":1,"profiles":{"a:x":{"cooldownUntil":"soon"}}}'],
    ['another version', '{"version":7,"profiles":{}}'],
  ])('a corrupt file (%s) costs one warning and a clean start', async (_name, text) => {
    const file = await tempFile();
    await writeFile(file, text);
    const warnings: string[] = [];
    const store = new AuthStateStore(file, { warn: (m) => warnings.push(m) });
    expect(await store.read()).toEqual({});
    expect(await store.read()).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('start clean');
    await store.update('a:x', (s) => recordUse(s, 1));
    expect(await new AuthStateStore(file).read()).toEqual({ 'a:x': { lastUsedAt: 1 } });
  });

  it('a state file that cannot be written costs one warning, never the caller', async () => {
    const file = await tempFile();
    await mkdir(join(file, 'in-the-way'), { recursive: true }); // a folder where the file should be: writes fail
    const warnings: string[] = [];
    const store = new AuthStateStore(file, { warn: (m) => warnings.push(m) });
    expect(await store.update('a:x', (s) => recordUse(s, 7))).toEqual({ lastUsedAt: 7 });
    expect(await store.update('a:x', (s) => recordUse(s, 8))).toEqual({ lastUsedAt: 8 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not (?:read|save)/);
  });
});
