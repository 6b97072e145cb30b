/**
 * What exec must not pass on (T2): the names of every configured key variable (`apiKeyEnv` of providers and
 * profiles, the built-in ANTHROPIC_API_KEY / OPENAI_API_KEY) and their values — plus the keychain's keys when the
 * keychain is already open (never opened just for this) — so a copy under another name is dropped too.
 */
import type { AppConfig } from '../engine/config/schema.js';
import type { ScrubOptions } from '../tools/env.js';
import type { SecretStore } from '../auth/secrets.js';
import { secretRedactor } from '../auth/redact.js';

const BUILT_IN = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'];

export async function configuredSecrets(
  config: AppConfig,
  env: NodeJS.ProcessEnv,
  keychain: Promise<SecretStore> | undefined,
): Promise<ScrubOptions> {
  const names = new Set(BUILT_IN);
  for (const p of Object.values(config.providers)) if (p.apiKeyEnv) names.add(p.apiKeyEnv);
  for (const p of config.authProfiles) if (p.apiKeyEnv) names.add(p.apiKeyEnv);
  const values = [...names].map((n) => env[n]).filter((v): v is string => !!v);
  if (keychain) {
    try {
      const store = await keychain;
      for (const id of await store.list()) {
        const v = await store.get(id);
        if (v) values.push(v);
      }
    } catch {
      // keychain not available: only the environment's keys are known
    }
  }
  for (const v of values) secretRedactor.add(v);
  return { names: [...names], values };
}
