/**
 * First cut of E6: the auth profiles of one provider, in order —
 *   1. profiles configured in `authProfiles` (apiKeyEnv → an env profile, none → a keychain profile),
 *   2. keychain-only ids "provider:label" not already listed,
 *   3. the built-in env profile "provider:env" when its variable is set (ANTHROPIC_API_KEY / OPENAI_API_KEY, or the
 *      provider's configured `apiKeyEnv`).
 * The demo provider needs none. This is config order; the order the loop tries them in is auth/order.ts.
 */
import type { AppConfig } from '../engine/config/schema.js';
import { BUILT_IN_PROVIDERS } from '../engine/models.js';

export interface AuthProfile {
  id: string;
  provider: string;
  source: 'env' | 'keychain';
  apiKeyEnv?: string;
  locked?: boolean;
  preferred?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The variable of the built-in `provider:env` profile, if the provider has one. */
export function providerKeyEnv(config: AppConfig, provider: string): string | undefined {
  const configured = config.providers && Object.hasOwn(config.providers, provider) ? config.providers[provider] : undefined;
  if (configured?.apiKeyEnv) return configured.apiKeyEnv;
  return Object.hasOwn(BUILT_IN_PROVIDERS, provider) ? BUILT_IN_PROVIDERS[provider]?.apiKeyEnv : undefined;
}

export function profilesFor(config: AppConfig, provider: string, env: Env, keychainIds: readonly string[] = []): AuthProfile[] {
  if (provider === 'demo') return [];
  const out: AuthProfile[] = [];
  const listed = new Set<string>();
  const add = (p: AuthProfile) => {
    if (listed.has(p.id)) return;
    listed.add(p.id);
    out.push(p);
  };

  for (const p of config.authProfiles ?? []) {
    if (p.provider !== provider) continue;
    const flags = { ...(p.locked ? { locked: true } : {}), ...(p.preferred ? { preferred: true } : {}) };
    add(p.apiKeyEnv ? { id: p.id, provider, source: 'env', apiKeyEnv: p.apiKeyEnv, ...flags } : { id: p.id, provider, source: 'keychain', ...flags });
  }

  const prefix = `${provider}:`;
  for (const id of keychainIds) {
    if (id.startsWith(prefix) && id.length > prefix.length) add({ id, provider, source: 'keychain' });
  }

  const envVar = providerKeyEnv(config, provider);
  const value = envVar ? env[envVar] : undefined;
  if (envVar && value !== undefined && value.trim() !== '') add({ id: `${provider}:env`, provider, source: 'env', apiKeyEnv: envVar });
  return out;
}
