/**
 * D4/D5 settings methods: `settings.get`, `settings.update` (defaults, endpoints, onboarding, the encrypted
 * fallback), `settings.setWorkspace` (a typed path in browser mode, the native dialog in the app) and
 * `providers.fetchModels`. A change applies to the next run; running work is never aborted.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { Methods, SettingsView } from '../../../preload/contract.js';
import { API_KINDS, QUEUE_MODES, THINKING_LEVELS } from '../../engine/config/schema.js';
import type { SecretStore } from '../../auth/secrets.js';
import { endpointSchema, MAX_RECENT_FOLDERS, APPROVAL_MODES, type Settings } from '../../settings/schema.js';
import type { SettingsStore } from '../../settings/store.js';
import { keychainFix } from '../../../preload/messages/keychain.js';
import { modelListFailedText } from '../../../preload/messages/providers.js';
import { describeFsError } from '../../errors/fs-errors.js';
import { modelRef, validatedMethods } from '../params.js';
import { GatewayError } from '../types.js';
import { realWorkspace } from '../../tools/paths.js';

const providerName = lazy(() => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'provider names may use only letters, digits, ".", "_" and "-"'));
const schemas = lazy(() => ({
  'settings.get': z.object({}).strict(),
  'settings.update': z
    .object({
      defaults: z
        .object({
          model: modelRef.optional(),
          thinking: z.enum(THINKING_LEVELS).optional(),
          queueMode: z.enum(QUEUE_MODES).optional(),
          approval: z.enum(APPROVAL_MODES).optional(),
          sandbox: z.boolean().optional(),
          timeoutSeconds: z.number().int('the run timeout is whole seconds').min(1).max(7 * 24 * 3600).optional(),
          verbose: z.boolean().optional(),
        })
        .strict()
        .optional(),
      onboarded: z.boolean().optional(),
      allowEncryptedFallback: z.boolean().optional(),
      providers: z.record(providerName, endpointSchema.nullable()).optional(),
    })
    .strict(),
  'settings.setWorkspace': z.object({ path: z.string().min(1).max(4096).optional(), dialog: z.boolean().optional() }).strict(),
  'providers.fetchModels': z
    .object({
      api: z.enum(API_KINDS),
      baseUrl: z.url({ protocol: /^https?$/ }),
      provider: providerName.optional(),
      /** A key typed into the provider form before it is saved: used for this one request only, never stored. */
      apiKey: z.string().trim().min(8).max(1000).regex(/^\S+$/).optional(),
    })
    .strict(),
} as const));

type SettingsMethod = keyof typeof schemas;

export interface SettingsMethodDeps {
  settings: SettingsStore;
  /** The folder new runs work in. */
  workspace: () => string;
  /** Applies settings to the running gateway (config for new runs, workspace); never aborts running work. */
  reconfigure: () => void;
  openSecrets: () => Promise<SecretStore>;
  /** The desktop app's native folder dialog (undefined when cancelled); absent in browser mode. */
  pickFolder?: () => Promise<string | undefined>;
  /** The desktop app's encrypted fallback is available (Electron safeStorage). */
  encryptedFallbackSupported?: boolean;
  /** AgentDesk's data folders: never accepted as a workspace (X5). */
  dataFolders?: readonly string[];
  /** Lists an endpoint's models (GET {baseUrl}/models through the provider SDK). */
  fetchModels: (api: (typeof API_KINDS)[number], baseUrl: string, provider?: string, apiKey?: string) => Promise<string[]>;
}

/** A folder the agent may work in: absolute, existing, a directory; returned with symlinks resolved. */
export async function validateWorkspace(path: string, dataFolders: readonly string[] = []): Promise<string> {
  if (!isAbsolute(path)) throw new GatewayError('bad_request', `"${path}" is not an absolute path (e.g. /home/me/project).`);
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw new GatewayError('bad_request', `${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : describeFsError(err)}.`);
  }
  if (!st.isDirectory()) throw new GatewayError('bad_request', `${path} is a file, not a folder.`);
  try {
    return await realWorkspace(path, { home: homedir(), dataFolders });
  } catch (err) {
    throw new GatewayError('bad_request', (err as Error).message);
  }
}

export const withRecent = (recent: string[], folder: string): string[] => [folder, ...recent.filter((f) => f !== folder)].slice(0, MAX_RECENT_FOLDERS);

export function createSettingsMethods(deps: SettingsMethodDeps) {
  const view = async (): Promise<SettingsView> => {
    const s = deps.settings.get();
    let keychain: SettingsView['keychain'];
    try {
      await deps.openSecrets();
      keychain = { available: true };
    } catch (err) {
      const reason = (err as Error).message;
      keychain = { available: false, reason, fix: keychainFix(reason, process.platform) };
    }
    return {
      defaults: s.defaults,
      workspace: deps.workspace(),
      recentWorkspaces: s.recentWorkspaces,
      providers: s.providers,
      onboarded: s.onboarded,
      keychain,
      encryptedFallback: { supported: deps.encryptedFallbackSupported === true, allowed: s.allowEncryptedFallback },
      file: deps.settings.file,
      folderPicker: deps.pickFolder ? 'dialog' : 'path',
    };
  };

  const handlers: { [M in SettingsMethod]: (p: z.infer<(typeof schemas)[M]>) => Promise<Methods[M][1]> } = {
    async 'settings.get'() {
      return view();
    },
    async 'settings.update'(p) {
      const previous = deps.settings.get();
      deps.settings.update((s): Settings => {
        const providers = { ...s.providers };
        for (const [name, endpoint] of Object.entries(p.providers ?? {})) {
          if (endpoint === null) delete providers[name];
          else providers[name] = endpoint;
        }
        const defaults = { ...s.defaults, ...(p.defaults ?? {}) };
        return {
          ...s,
          defaults,
          providers,
          ...(p.onboarded !== undefined ? { onboarded: p.onboarded } : {}),
          ...(p.allowEncryptedFallback !== undefined ? { allowEncryptedFallback: p.allowEncryptedFallback } : {}),
        };
      });
      try {
        deps.reconfigure();
      } catch (err) {
        // The combination does not form a valid config (e.g. a default model of a removed endpoint): undo.
        deps.settings.update(() => previous);
        throw new GatewayError('bad_request', (err as Error).message.split('\n')[0]!);
      }
      return view();
    },
    async 'settings.setWorkspace'(p) {
      let path = p.path;
      if (p.dialog) {
        if (!deps.pickFolder) throw new GatewayError('bad_request', 'No folder dialog here: type the folder path instead.');
        path = await deps.pickFolder();
        if (path === undefined) return view(); // cancelled
      }
      if (path === undefined) throw new GatewayError('bad_request', 'settings.setWorkspace: give a path');
      const folder = await validateWorkspace(path.trim(), deps.dataFolders);
      deps.settings.update((s) => ({ ...s, workspace: folder, recentWorkspaces: withRecent(s.recentWorkspaces, folder) }));
      deps.reconfigure();
      return view();
    },
    async 'providers.fetchModels'(p) {
      try {
        return { ids: (await deps.fetchModels(p.api, p.baseUrl, p.provider, p.apiKey)).sort() };
      } catch (err) {
        const why = (err as Error).message.split('\n')[0]!;
        throw new GatewayError('bad_request', modelListFailedText(p.baseUrl, p.apiKey ? why.split(p.apiKey).join('***') : why));
      }
    },
  };

  const methods = validatedMethods<typeof schemas, { [M in SettingsMethod]: Methods[M][1] }>(schemas, handlers);
  return methods;
}
