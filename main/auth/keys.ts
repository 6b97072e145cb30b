/**
 * Picks the API key for a model call: environment-variable profiles first, then keychain profiles (the keychain is
 * only opened when needed, so a headless run with env keys never touches D-Bus). First cut of E6: no cooldowns yet.
 */
import type { ModelDef } from '../providers/types.js';
import type { AppConfig } from '../engine/config/schema.js';
import { profilesFor } from './profiles.js';
import type { SecretStore } from './secrets.js';

export class NoApiKeyError extends Error {
  override name = 'NoApiKeyError';
}

export interface ResolvedKey {
  profileId: string | null;
  apiKey: string;
}

const BUILT_IN = new Set(['anthropic', 'openai']);

export async function resolveApiKey(opts: {
  model: ModelDef;
  config: AppConfig;
  env: NodeJS.ProcessEnv;
  openSecrets: () => Promise<SecretStore>;
}): Promise<ResolvedKey> {
  const { model, config, env } = opts;
  if (model.api === 'demo') return { profileId: null, apiKey: 'demo' };
  const provider = model.provider;

  for (const profile of profilesFor(config, provider, env)) {
    if (profile.source !== 'env' || !profile.apiKeyEnv) continue;
    const key = env[profile.apiKeyEnv]?.trim();
    if (key) return { profileId: profile.id, apiKey: key };
  }

  let keychainProblem: string | undefined;
  try {
    const secrets = await opts.openSecrets();
    const ids = (await secrets.list()).filter((id) => id.startsWith(`${provider}:`));
    for (const profile of profilesFor(config, provider, env, ids)) {
      if (profile.source !== 'keychain') continue;
      const key = (await secrets.get(profile.id))?.trim();
      if (key) return { profileId: profile.id, apiKey: key };
    }
  } catch (err) {
    keychainProblem = (err as Error).message;
  }

  const configured = config.providers?.[provider];
  const definesAuth = config.authProfiles?.some((p) => p.provider === provider) || configured?.apiKeyEnv;
  if (!BUILT_IN.has(provider) && !definesAuth) {
    // A configured local server (Ollama, LM Studio, vLLM) without any auth: the SDKs need a non-empty key.
    return { profileId: null, apiKey: 'no-key' };
  }
  const envHint = configured?.apiKeyEnv ?? (provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : provider === 'openai' ? 'OPENAI_API_KEY' : undefined);
  const how = [
    envHint ? `set ${envHint}` : undefined,
    `add one with: agentdesk auth add --provider ${provider} --label default`,
  ]
    .filter(Boolean)
    .join(', or ');
  throw new NoApiKeyError(
    `No API key for provider "${provider}": ${how}.${keychainProblem ? ` (${keychainProblem})` : ''}`,
  );
}
