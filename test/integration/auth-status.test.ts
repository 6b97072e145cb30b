/**
 * E6 through the gateway: `auth.status` and `models.list` with env keys and keychain keys. The keychain here is an
 * in-memory SecretStore standing in for keytar (the real keychain is covered by keychain.test.ts).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppGateway, type AppGateway } from '../../main/gateway/create.js';
import type { SecretStore } from '../../main/auth/secrets.js';
import { AuthStateStore } from '../../main/auth/state-store.js';
import { recordFailure } from '../../main/auth/cooldown.js';
import { tempDir, writeConfig } from '../support/cli.js';

function memorySecrets(entries: Record<string, string>): SecretStore {
  const map = new Map(Object.entries(entries));
  return {
    get: async (id) => map.get(id) ?? null,
    set: async (id, s) => void map.set(id, s),
    delete: async (id) => map.delete(id),
    list: async () => [...map.keys()].sort(),
  };
}

let gw: AppGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('auth.status and models.list (E6)', () => {
  it('lists every profile with its state; a keychain-only provider has a key', async () => {
    const home = await tempDir('auth-status');
    const workspace = await tempDir('auth-status-ws');
    await writeConfig(home, {
      providers: { local: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'LOCAL_KEY', models: [{ id: 'm' }] } },
      authProfiles: [
        { id: 'anthropic:work', provider: 'anthropic', apiKeyEnv: 'WORK_KEY' },
        { id: 'anthropic:unset', provider: 'anthropic', apiKeyEnv: 'UNSET_KEY' },
      ],
    });
    const now = 5_000_000;
    await new AuthStateStore(join(home, 'auth-state.json')).update('anthropic:work', (s) =>
      recordFailure(s, { reason: 'rate_limit', message: 'Anthropic rate limit reached (429): slow down', now: now - 1000 }),
    );
    gw = await createAppGateway({
      home,
      workspace,
      env: { WORK_KEY: 'sk-ant-work-key-123456' },
      now: () => now,
      openSecrets: async () => memorySecrets({ 'anthropic:personal': 'sk-ant-personal-abcdef', 'openai:home': 'sk-openai-home-999999' }),
    });
    const status = await gw.request('auth.status', {});
    expect(status).toEqual([
      {
        id: 'anthropic:work',
        provider: 'anthropic',
        source: 'env',
        masked: 'sk-ant…3456',
        state: 'cooling',
        cooldownUntil: now - 1000 + 30_000,
        reason: 'rate_limit',
        lastError: 'Anthropic rate limit reached (429): slow down',
      },
      { id: 'anthropic:unset', provider: 'anthropic', source: 'env', state: 'missing' },
      { id: 'anthropic:personal', provider: 'anthropic', source: 'keychain', masked: 'sk-ant…cdef', state: 'ok' },
      { id: 'openai:home', provider: 'openai', source: 'keychain', masked: 'sk-ope…9999', state: 'ok' },
    ]);
    expect(JSON.stringify(status)).not.toMatch(/work-key-123456|personal-abcdef/);

    const models = await gw.request('models.list', {});
    const hasKey = Object.fromEntries(models.map((m) => [m.provider, m.hasKey]));
    expect(hasKey).toEqual({ anthropic: true, openai: true, demo: true, local: false });
  });
});
