/**
 * D4: key profiles from Settings — `auth.add` (the key goes from the request to the keychain and never comes back:
 * every answer carries only the mask), `auth.remove`, `auth.reorder` (the order the outer loop tries them in, via
 * config.authProfiles), `auth.test` (one minimal real request through the provider's SDK, classified).
 * Profile metadata (id, provider, label, order) lives in settings.json; keys only in the keychain — or, when the
 * person explicitly chose it because no keychain is reachable, in the app's encrypted fallback (Electron safeStorage).
 */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { AuthTestResult, KeyProfileView, Methods } from '../../../preload/contract.js';
import { classifyError } from '../../engine/classify.js';
import { providerModels, providerNames } from '../../engine/models.js';
import type { AppConfig } from '../../engine/config/schema.js';
import type { ModelDef, StreamFn } from '../../providers/types.js';
import type { Usage } from '../../engine/messages.js';
import { KeychainUnavailableError, maskSecret, type SecretStore } from '../../auth/secrets.js';
import { redactSecrets, secretRedactor } from '../../auth/redact.js';
import type { SettingsStore } from '../../settings/store.js';
import type { ProfileSettings } from '../../settings/schema.js';
import { validatedMethods } from '../params.js';
import { GatewayError } from '../types.js';

const label = lazy(() => z.string().regex(/^[\w.-]{1,64}$/, 'label may only contain letters, digits, "_", "-" and "." (at most 64)'));
const profileId = lazy(() => z.string().min(3).max(200));
const schemas = lazy(() => ({
  'auth.add': z
    .object({
      provider: z.string().min(1).max(100),
      label,
      key: z
        .string()
        .transform((s) => s.trim())
        .pipe(z.string().min(8, 'the key looks too short').max(1000, 'the key is too long').regex(/^\S+$/, 'the key must not contain spaces')),
      storage: z.enum(['keychain', 'encrypted']).optional(),
    })
    .strict(),
  'auth.remove': z.object({ id: profileId }).strict(),
  'auth.restore': z.object({ id: profileId }).strict(),
  'auth.reorder': z.object({ provider: z.string().min(1), ids: z.array(profileId).max(100) }).strict(),
  'auth.test': z.object({ id: profileId }).strict(),
  'auth.profiles': z.object({}).strict(),
} as const));

type AuthKeyMethod = keyof typeof schemas;

export interface AuthKeyDeps {
  settings: SettingsStore;
  config: () => AppConfig;
  /** Settings changed: recompute the config (new profile order) without touching running work. */
  reconfigure: () => void;
  openSecrets: () => Promise<SecretStore>;
  /** The app's encrypted store (Electron safeStorage); absent under plain Node. */
  openFallback?: () => Promise<SecretStore>;
  streamFor: (model: ModelDef) => StreamFn;
  now: () => number;
  /** X4: a key test is a model call too: its tokens go to the cost ledger. */
  onTestUsage?: (call: { model: ModelDef; profileId: string; usage: Usage }) => void;
  /** How long a removed key can be put back (default 30 s; issue 18 item 13). */
  undoWindowMs?: number;
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (handle: unknown) => void };
}

export const KEY_UNDO_WINDOW_MS = 30_000;

export function createAuthKeyMethods(deps: AuthKeyDeps) {
  const timers = deps.timers ?? { setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
  /**
   * Removed keys that can still be put back: the key itself stays in this process's memory only (as it would in
   * the keychain's), never on disk and never sent anywhere, and is dropped when the window ends.
   */
  const trash = new Map<string, { profile: ProfileSettings; index: number; key: string | null; timer: unknown }>();
  const storeFor = async (storage: ProfileSettings['storage']): Promise<SecretStore> => {
    if (storage === 'encrypted') {
      if (!deps.openFallback) throw new GatewayError('bad_request', 'The encrypted fallback store exists only in the desktop app.');
      if (!deps.settings.get().allowEncryptedFallback) {
        throw new GatewayError('bad_request', 'Turn on "store keys encrypted by the app" in Settings first.');
      }
      return deps.openFallback();
    }
    try {
      return await deps.openSecrets();
    } catch (err) {
      if (err instanceof KeychainUnavailableError) throw new GatewayError('bad_request', err.message);
      throw err;
    }
  };

  const view = async (p: ProfileSettings): Promise<KeyProfileView> => {
    let masked: string | undefined;
    try {
      const key = await (await storeFor(p.storage)).get(p.id);
      masked = key ? maskSecret(key) : undefined;
    } catch {
      masked = undefined;
    }
    return { id: p.id, provider: p.provider, label: p.label, storage: p.storage, addedAt: p.addedAt, ...(masked ? { masked } : {}) };
  };

  const handlers: { [M in AuthKeyMethod]: (p: z.infer<(typeof schemas)[M]>) => Promise<Methods[M][1]> } = {
    async 'auth.profiles'() {
      return Promise.all(deps.settings.get().profiles.map(view));
    },
    async 'auth.add'(p) {
      const providers = providerNames(deps.config()).filter((n) => n !== 'demo');
      if (!providers.includes(p.provider)) {
        throw new GatewayError('bad_request', `auth.add: unknown provider "${p.provider}" (known: ${providers.join(', ')})`);
      }
      const id = `${p.provider}:${p.label}`;
      if (deps.settings.get().profiles.some((x) => x.id === id)) throw new GatewayError('bad_request', `A key named "${id}" exists already.`);
      const storage = p.storage ?? 'keychain';
      secretRedactor.add(p.key); // X5: from now on no error text this process stores or shows can carry it
      await (await storeFor(storage)).set(id, p.key);
      const profile: ProfileSettings = { id, provider: p.provider, label: p.label, addedAt: deps.now(), storage };
      deps.settings.update((s) => ({ ...s, profiles: [...s.profiles, profile] }));
      deps.reconfigure();
      return { id, provider: p.provider, label: p.label, storage, addedAt: profile.addedAt, masked: maskSecret(p.key) };
    },
    async 'auth.remove'(p) {
      const profiles = deps.settings.get().profiles;
      const index = profiles.findIndex((x) => x.id === p.id);
      const profile = profiles[index];
      let removed = false;
      let key: string | null = null;
      try {
        const store = await storeFor(profile?.storage ?? 'keychain');
        key = await store.get(p.id).catch(() => null);
        removed = await store.delete(p.id);
      } catch (err) {
        if (!profile) throw err;
      }
      if (profile) {
        deps.settings.update((s) => ({ ...s, profiles: s.profiles.filter((x) => x.id !== p.id) }));
        deps.reconfigure();
        const window = deps.undoWindowMs ?? KEY_UNDO_WINDOW_MS;
        const previous = trash.get(p.id);
        if (previous) timers.clearTimeout(previous.timer);
        trash.set(p.id, { profile, index, key, timer: timers.setTimeout(() => trash.delete(p.id), window) });
        return { removed: true, undoUntil: deps.now() + window };
      }
      return { removed };
    },
    async 'auth.restore'(p) {
      const item = trash.get(p.id);
      if (!item) throw new GatewayError('not_found', `The key "${p.id}" can no longer be put back.`);
      if (deps.settings.get().profiles.some((x) => x.id === p.id)) throw new GatewayError('bad_request', `A key named "${p.id}" exists again; it was not replaced.`);
      if (item.key) await (await storeFor(item.profile.storage)).set(p.id, item.key);
      timers.clearTimeout(item.timer);
      trash.delete(p.id);
      deps.settings.update((s) => {
        const next = [...s.profiles];
        next.splice(Math.min(item.index, next.length), 0, item.profile);
        return { ...s, profiles: next };
      });
      deps.reconfigure();
      return view(item.profile);
    },
    async 'auth.reorder'(p) {
      const current = deps.settings.get().profiles;
      const mine = current.filter((x) => x.provider === p.provider);
      if (mine.length !== p.ids.length || !mine.every((x) => p.ids.includes(x.id))) {
        throw new GatewayError('bad_request', `auth.reorder: ids must list every profile of "${p.provider}" exactly once`);
      }
      const ordered = p.ids.map((id) => mine.find((x) => x.id === id)!);
      let i = 0;
      const next = current.map((x) => (x.provider === p.provider ? ordered[i++]! : x));
      deps.settings.update((s) => ({ ...s, profiles: next }));
      deps.reconfigure();
      return Promise.all(next.map(view));
    },
    async 'auth.test'(p) {
      const profile = deps.settings.get().profiles.find((x) => x.id === p.id);
      const provider = profile?.provider ?? p.id.split(':')[0]!;
      const key = await (await storeFor(profile?.storage ?? 'keychain')).get(p.id);
      if (!key) throw new GatewayError('not_found', `No stored key for "${p.id}".`);
      const model = providerModels(deps.config(), provider)?.[0];
      if (!model) return { ok: false, reason: 'model_not_found', message: `Provider "${provider}" has no model to test with.`, latencyMs: 0 };
      const onUsage = deps.onTestUsage && ((usage: Usage) => deps.onTestUsage!({ model, profileId: p.id, usage }));
      return testKey(deps.streamFor(model), { ...model, maxTokens: 1 }, key, deps.now, onUsage, p.id);
    },
  };

  const methods = validatedMethods<typeof schemas, { [M in AuthKeyMethod]: Methods[M][1] }>(schemas, handlers);
  return methods;
}

/** One tiny request ("reply OK", at most one output token); the outcome classified like a run's errors (E8). */
export async function testKey(
  stream: StreamFn,
  model: ModelDef,
  apiKey: string,
  now: () => number,
  onUsage?: (usage: Usage) => void,
  profileId?: string,
): Promise<AuthTestResult> {
  const started = now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('The test request timed out after 20 s.')), 20_000);
  try {
    for await (const event of stream({
      model,
      apiKey,
      systemPrompt: 'Reply with OK.',
      messages: [{ role: 'user', content: 'OK?', timestamp: started }],
      tools: [],
      thinking: 'off',
      signal: controller.signal,
      idleTimeoutMs: 20_000,
    })) {
      if ((event.type === 'done' || event.type === 'error') && hasTokens(event.message.usage)) onUsage?.(event.message.usage);
      if (event.type === 'done') return { ok: true, model: `${model.provider}/${model.id}`, latencyMs: now() - started };
      if (event.type === 'error') {
        const c = classifyError(event.error, now(), model.provider, profileId);
        return { ok: false, reason: c.reason, message: redactSecrets(c.message, [apiKey]), latencyMs: now() - started };
      }
    }
    return { ok: false, reason: 'unknown', message: 'The provider ended the answer without finishing it.', latencyMs: now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const hasTokens = (u: Usage | undefined): u is Usage => !!u && u.input + u.output + u.cacheRead + u.cacheWrite > 0;
