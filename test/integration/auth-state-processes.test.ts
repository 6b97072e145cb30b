/** E6: the auth state file shared by separate processes (each one a real `node` process on the TypeScript source). */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { AuthStateStore } from '../../main/auth/state-store.js';

describe('AuthStateStore across real processes', () => {
  it('4 processes × 15 read-modify-write updates of one profile lose nothing', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'agentdesk-authstate-')), 'auth-state.json');
    const url = pathToFileURL(join(import.meta.dirname, '../../main/auth/state-store.ts')).href;
    const code = `
      const { AuthStateStore } = await import(${JSON.stringify(url)});
      const store = new AuthStateStore(${JSON.stringify(file)});
      for (let i = 0; i < 15; i++) await store.update('a:shared', (s) => ({ ...s, lastUsedAt: (s?.lastUsedAt ?? 0) + 1 }));`;
    await Promise.all(
      Array.from({ length: 4 }, () => execa('node', ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: join(import.meta.dirname, '../..') })),
    );
    expect((await new AuthStateStore(file).read())['a:shared']).toEqual({ lastUsedAt: 60 });
  }, 30_000);
});
