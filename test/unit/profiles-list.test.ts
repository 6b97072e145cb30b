import { describe, expect, it } from 'vitest';
import { profilesFor, type AuthProfile } from '../../main/auth/profiles.js';
import { parseConfig } from '../../main/engine/config/load.js';
import { defaultConfig } from '../../main/engine/config/schema.js';

const config = parseConfig(
  JSON.stringify({
    providers: {
      local: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:1234/v1', apiKeyEnv: 'LOCAL_KEY' },
      anthropic: { apiKeyEnv: 'MY_ANTHROPIC_KEY' },
      bare: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:1235/v1' },
    },
    authProfiles: [
      { id: 'openai:work', provider: 'openai', apiKeyEnv: 'OPENAI_WORK_KEY' },
      { id: 'openai:personal', provider: 'openai' },
      { id: 'local:team', provider: 'local' },
      { id: 'openai:env', provider: 'openai', apiKeyEnv: 'OPENAI_API_KEY' },
    ],
  }),
);

const env = (id: string, provider: string, apiKeyEnv: string): AuthProfile => ({ id, provider, source: 'env', apiKeyEnv });
const kc = (id: string, provider: string): AuthProfile => ({ id, provider, source: 'keychain' });

describe('profilesFor', () => {
  it.each<[string, Parameters<typeof profilesFor>[0], string, Record<string, string>, string[], AuthProfile[]]>([
    ['nothing anywhere', defaultConfig(), 'anthropic', {}, [], []],
    ['built-in env profile', defaultConfig(), 'anthropic', { ANTHROPIC_API_KEY: 'sk' }, [], [env('anthropic:env', 'anthropic', 'ANTHROPIC_API_KEY')]],
    ['openai built-in env profile', defaultConfig(), 'openai', { OPENAI_API_KEY: 'sk' }, [], [env('openai:env', 'openai', 'OPENAI_API_KEY')]],
    ['empty env var is not set', defaultConfig(), 'openai', { OPENAI_API_KEY: '' }, [], []],
    ['keychain ids of other providers are ignored', defaultConfig(), 'openai', {}, ['anthropic:a', 'openai:b', 'openai:', 'openaix:c'], [kc('openai:b', 'openai')]],
    [
      'configured first (in order), then keychain-only, then env; no duplicates',
      config,
      'openai',
      { OPENAI_API_KEY: 'sk' },
      ['openai:zeta', 'openai:personal', 'openai:alpha', 'openai:zeta'],
      [
        env('openai:work', 'openai', 'OPENAI_WORK_KEY'),
        kc('openai:personal', 'openai'),
        env('openai:env', 'openai', 'OPENAI_API_KEY'), // configured explicitly, so it keeps its configured place
        kc('openai:zeta', 'openai'),
        kc('openai:alpha', 'openai'),
      ],
    ],
    [
      "a provider's apiKeyEnv replaces the built-in variable",
      config,
      'anthropic',
      { ANTHROPIC_API_KEY: 'ignored', MY_ANTHROPIC_KEY: 'sk' },
      [],
      [env('anthropic:env', 'anthropic', 'MY_ANTHROPIC_KEY')],
    ],
    ['…and only it', config, 'anthropic', { ANTHROPIC_API_KEY: 'sk' }, [], []],
    [
      'custom provider: configured keychain profile, then its env profile',
      config,
      'local',
      { LOCAL_KEY: 'k' },
      ['local:other'],
      [kc('local:team', 'local'), kc('local:other', 'local'), env('local:env', 'local', 'LOCAL_KEY')],
    ],
    ['custom provider without apiKeyEnv has no env profile', config, 'bare', { OPENAI_API_KEY: 'sk' }, [], []],
    ['demo needs none', config, 'demo', { ANTHROPIC_API_KEY: 'sk' }, ['demo:x'], []],
  ])('%s', (_name, cfg, provider, envVars, keychainIds, expected) => {
    expect(profilesFor(cfg, provider, envVars, keychainIds)).toEqual(expected);
  });
});
