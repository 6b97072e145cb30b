/**
 * E6: the auth profiles the outer loop rotates through — which exist (config `authProfiles` with apiKeyEnv, OS
 * keychain ids, the built-in env variable), their order (order.ts), their keys, and their persisted state
 * (state-store.ts, shared by every process on the home folder). The keychain is opened only when a configured
 * profile lives there or no environment key is ready, so a headless run with env keys never touches D-Bus.
 */
import { createHash } from 'node:crypto';
import type { ProfileStatus } from '../../preload/contract.js';
import type { ModelDef } from '../providers/types.js';
import type { AppConfig } from '../engine/config/schema.js';
import { providerNames } from '../engine/models.js';
import type { ClassifiedError } from '../engine/classify.js';
import { profilesFor, providerKeyEnv, type AuthProfile } from './profiles.js';
import { maskSecret, type SecretStore } from './secrets.js';
import { secretRedactor } from './redact.js';
import { orderProfiles, type OrderedProfiles } from './order.js';
import { displayState, forKey, isCooling, modelWindows, recordFailure, recordSuccess, recordUse, type ProfileState } from './cooldown.js';
import type { AuthStateStore, ProfileStates } from './state-store.js';
import { noKeyText } from '../../preload/messages/keys.js';

export class NoApiKeyError extends Error {
  override name = 'NoApiKeyError';
}

/** Either profiles to try, or a provider that needs no key (demo, a local server without auth). */
export type AuthPlan = ({ kind: 'profiles' } & OrderedProfiles & { states: ProfileStates }) | { kind: 'keyless'; apiKey: string };

const BUILT_IN = new Set(['anthropic', 'openai']);

/** A short one-way fingerprint of a key (never the key): tells a replaced key from the one that failed. */
export const keyFingerprint = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 12);
type Env = NodeJS.ProcessEnv;

export interface AuthPoolOptions {
  config: AppConfig;
  env: Env;
  openSecrets: () => Promise<SecretStore>;
  state: AuthStateStore;
  now: () => number;
}

export class AuthPool {
  constructor(private readonly o: AuthPoolOptions) {}

  private envKey(p: AuthProfile): string | undefined {
    const v = p.apiKeyEnv ? this.o.env[p.apiKeyEnv]?.trim() : undefined;
    return v ? v : undefined;
  }

  private async keychainIds(provider?: string): Promise<{ ids: string[]; problem?: string }> {
    try {
      const ids = await (await this.o.openSecrets()).list();
      return { ids: provider ? ids.filter((id) => id.startsWith(`${provider}:`)) : ids };
    } catch (err) {
      const e = err as Error & { reason?: unknown };
      return { ids: [], problem: typeof e.reason === 'string' ? e.reason : e.message };
    }
  }

  /** The profiles of the model's provider in the order to try them (throws NoApiKeyError when there is none). */
  async plan(model: ModelDef): Promise<AuthPlan> {
    if (model.api === 'demo') return { kind: 'keyless', apiKey: 'demo' };
    const { config, env } = this.o;
    const provider = model.provider;
    const states = await this.o.state.read();
    const now = this.o.now();
    let profiles = profilesFor(config, provider, env).filter((p) => p.source === 'keychain' || this.envKey(p));
    let problem: string | undefined;
    const ref = `${model.provider}/${model.id}`;
    const needKeychain = profiles.some((p) => p.source === 'keychain') || orderProfiles(profiles, states, now, ref).ready.length === 0;
    if (needKeychain) {
      const kc = await this.keychainIds(provider);
      problem = kc.problem;
      profiles = profilesFor(config, provider, env, kc.ids).filter((p) => (p.source === 'env' ? this.envKey(p) : kc.ids.includes(p.id)));
    }
    if (profiles.length > 0) {
      const current = await this.statesForCurrentKeys(profiles, states, now);
      return { kind: 'profiles', states: current, ...orderProfiles(profiles, current, now, ref) };
    }

    const definesAuth = config.authProfiles?.some((p) => p.provider === provider) || config.providers?.[provider]?.apiKeyEnv;
    // A configured local server (Ollama, LM Studio, vLLM) without any auth: the SDKs need a non-empty key.
    if (!BUILT_IN.has(provider) && !definesAuth) return { kind: 'keyless', apiKey: 'no-key' };
    const envHint = providerKeyEnv(config, provider);
    throw new NoApiKeyError(noKeyText({ provider, ...(envHint ? { envHint } : {}), ...(problem ? { keychainProblem: problem } : {}) }));
  }

  /** Cooling profiles whose key was replaced since it failed are ready again. */
  private async statesForCurrentKeys(profiles: readonly AuthProfile[], states: ProfileStates, now: number): Promise<ProfileStates> {
    const out: ProfileStates = { ...states };
    for (const p of profiles) {
      const s = states[p.id];
      if (!s?.keyId || (!isCooling(s, now) && modelWindows(s, now).length === 0)) continue;
      const key = await this.key(p).catch(() => null);
      const adjusted = forKey(s, key ? keyFingerprint(key) : undefined);
      if (adjusted) out[p.id] = adjusted;
    }
    return out;
  }

  async key(p: AuthProfile): Promise<string | null> {
    const key = p.source === 'env' ? (this.envKey(p) ?? null) : ((await (await this.o.openSecrets()).get(p.id)) ?? '').trim() || null;
    secretRedactor.add(key); // X5: every key this process loads is cut out of error text (auth/redact.ts)
    return key;
  }

  used(id: string): Promise<ProfileState> {
    return this.o.state.update(id, (s) => recordUse(s, this.o.now()));
  }

  /** The key answered on `model` ("provider/model"): its windows for the key and that model end. */
  good(id: string, model?: string): Promise<ProfileState> {
    return this.o.state.update(id, (s) => recordSuccess(s, this.o.now(), model));
  }

  /**
   * Records a failure of the profile's key on `model` ("provider/model"): a rate limit benches it for that model
   * only. `apiKey` only fingerprints the key (a replaced key starts clean).
   */
  failed(id: string, err: ClassifiedError, apiKey?: string, model?: string): Promise<ProfileState> {
    const keyId = apiKey ? keyFingerprint(apiKey) : undefined;
    return this.o.state.update(id, (s) =>
      recordFailure(forKey(s, keyId), { reason: err.reason, message: secretRedactor.redact(err.message), now: this.o.now(), retryAfterMs: err.retryAfterMs, keyId, ...(model ? { model } : {}) }),
    );
  }

  /** True when the provider has a usable key (env or keychain) or needs none. */
  async hasKey(model: ModelDef): Promise<boolean> {
    try {
      await this.plan(model);
      return true;
    } catch {
      return false;
    }
  }

  /** Every profile of every provider with its state (for `auth list` and the `auth.status` method). */
  async status(): Promise<ProfileStatus[]> {
    const { config, env } = this.o;
    const states = await this.o.state.read();
    const now = this.o.now();
    const kc = await this.keychainIds();
    let secrets: SecretStore | undefined;
    if (!kc.problem) secrets = await this.o.openSecrets().catch(() => undefined);
    const out: ProfileStatus[] = [];
    for (const provider of providerNames(config).filter((p) => p !== 'demo')) {
      for (const p of profilesFor(config, provider, env, kc.ids)) {
        const key = p.source === 'env' ? this.envKey(p) : kc.ids.includes(p.id) ? ((await secrets?.get(p.id).catch(() => null)) ?? undefined) : undefined;
        secretRedactor.add(key);
        const s = forKey(states[p.id], key ? keyFingerprint(key) : undefined);
        const state = key ? displayState(s, now) : 'missing';
        const benched = key ? modelWindows(s, now) : [];
        out.push({
          id: p.id,
          provider,
          source: p.source,
          ...(key ? { masked: maskSecret(key) } : {}),
          state,
          ...(state === 'cooling' || state === 'disabled' ? { cooldownUntil: s?.cooldownUntil, reason: s?.reason } : {}),
          ...(benched.length > 0 ? { modelCooldowns: benched } : {}),
          ...(s?.lastError ? { lastError: secretRedactor.redact(s.lastError) } : {}),
          ...(s?.lastGoodAt !== undefined ? { lastGoodAt: s.lastGoodAt } : {}),
          ...(s?.lastUsedAt !== undefined ? { lastUsedAt: s.lastUsedAt } : {}),
        });
      }
    }
    return out;
  }
}
