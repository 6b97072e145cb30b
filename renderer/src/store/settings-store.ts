/**
 * Settings view state (zustand): what `settings.get` returns, the key profiles (metadata and masks only — a key
 * typed here goes to main once and never comes back), their live state from `auth.status`, and the actions.
 */
import { create } from 'zustand';
import type {
  AgentDeskApi,
  AuthTestResult,
  EndpointDto,
  KeyProfileView,
  ProfileStatus,
  SettingsDefaultsDto,
  SettingsView,
} from '../../../preload/contract.js';
import { useChat } from './chat-store.js';

export interface SettingsState {
  view?: SettingsView;
  profiles: KeyProfileView[];
  statuses: ProfileStatus[];
  tests: Record<string, AuthTestResult | 'running'>;
  /** One line per section: the last problem (or confirmation; a confirmation goes by itself after a few seconds). */
  notes: Partial<Record<'keys' | 'folder' | 'providers' | 'defaults', { kind: 'error' | 'ok'; text: string }>>;
  /** A key just removed, that Undo puts back until `until`. */
  keyUndo?: { id: string; until: number };
}

export const useSettings = create<SettingsState>(() => ({ profiles: [], statuses: [], tests: {}, notes: {} }));

/** How long a confirmation ("Saved.") stays. */
export const OK_NOTE_MS = 4000;

let api: AgentDeskApi | undefined;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const note = (section: keyof SettingsState['notes'], kind: 'error' | 'ok', text: string): void => {
  const entry = { kind, text };
  useSettings.setState((s) => ({ notes: { ...s.notes, [section]: entry } }));
  // a confirmation goes by itself; a problem stays until the next action in that section
  if (kind === 'ok') setTimeout(() => useSettings.getState().notes[section] === entry && clearNote(section), OK_NOTE_MS);
};
const clearNote = (section: keyof SettingsState['notes']) => useSettings.setState((s) => ({ notes: { ...s.notes, [section]: undefined } }));

export function connectSettings(a: AgentDeskApi): void {
  api = a;
}

/** Reloads the models and app info after a change (new keys, endpoints, default model, folder). */
async function refreshAppInfo(): Promise<void> {
  if (!api) return;
  const [info, models] = await Promise.all([api.request('app.info', {}), api.request('models.list', {})]);
  useChat.setState({ appInfo: info, models });
}

export async function loadSettings(): Promise<void> {
  if (!api) return;
  try {
    const [view, profiles, statuses] = await Promise.all([
      api.request('settings.get', {}),
      api.request('auth.profiles', {}),
      api.request('auth.status', {}).catch(() => [] as ProfileStatus[]),
    ]);
    useSettings.setState({ view, profiles, statuses });
  } catch (err) {
    note('keys', 'error', `Could not load the settings: ${message(err)}`);
  }
}

export async function addKey(provider: string, label: string, key: string): Promise<boolean> {
  if (!api) return false;
  try {
    const added = await api.request('auth.add', { provider, label, key });
    note('keys', 'ok', `Stored ${added.id} (${added.masked ?? 'masked'}).`);
    await loadSettings();
    await refreshAppInfo();
    return true;
  } catch (err) {
    note('keys', 'error', message(err));
    return false;
  }
}

/** Removes a key; for a while Undo puts it back (item 13: removing was immediate and irreversible). */
export async function removeKey(id: string): Promise<void> {
  if (!api) return;
  try {
    const res = await api.request('auth.remove', { id });
    clearNote('keys');
    if (res.undoUntil) useSettings.setState({ keyUndo: { id, until: res.undoUntil } });
    await loadSettings();
    await refreshAppInfo();
  } catch (err) {
    note('keys', 'error', message(err));
  }
}

export async function undoRemoveKey(): Promise<void> {
  const undo = useSettings.getState().keyUndo;
  if (!api || !undo) return;
  useSettings.setState({ keyUndo: undefined });
  try {
    const back = await api.request('auth.restore', { id: undo.id });
    note('keys', 'ok', `Put back ${back.id} (${back.masked ?? 'masked'}).`);
    await loadSettings();
    await refreshAppInfo();
  } catch (err) {
    note('keys', 'error', message(err));
  }
}

export const dismissKeyUndo = (): void => useSettings.setState({ keyUndo: undefined });

export async function moveKey(id: string, delta: -1 | 1): Promise<void> {
  if (!api) return;
  const { profiles } = useSettings.getState();
  const p = profiles.find((x) => x.id === id);
  if (!p) return;
  const ids = profiles.filter((x) => x.provider === p.provider).map((x) => x.id);
  const i = ids.indexOf(id);
  const j = i + delta;
  if (j < 0 || j >= ids.length) return;
  [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  try {
    const next = await api.request('auth.reorder', { provider: p.provider, ids });
    useSettings.setState({ profiles: next });
  } catch (err) {
    note('keys', 'error', message(err));
  }
}

export async function testKey(id: string): Promise<void> {
  if (!api) return;
  useSettings.setState((s) => ({ tests: { ...s.tests, [id]: 'running' } }));
  try {
    const result = await api.request('auth.test', { id });
    useSettings.setState((s) => ({ tests: { ...s.tests, [id]: result } }));
  } catch (err) {
    useSettings.setState((s) => ({ tests: { ...s.tests, [id]: { ok: false, reason: 'unknown', message: message(err), latencyMs: 0 } } }));
  }
  const statuses = await api.request('auth.status', {}).catch(() => undefined);
  if (statuses) useSettings.setState({ statuses });
}

export async function setWorkspace(target: { path: string } | { dialog: true }): Promise<boolean> {
  if (!api) return false;
  try {
    const view = await api.request('settings.setWorkspace', target);
    useSettings.setState({ view });
    note('folder', 'ok', `New chats work in ${view.workspace}.`);
    await refreshAppInfo();
    return true;
  } catch (err) {
    note('folder', 'error', message(err));
    return false;
  }
}

export async function updateDefaults(patch: SettingsDefaultsDto): Promise<void> {
  if (!api) return;
  try {
    const view = await api.request('settings.update', { defaults: patch });
    useSettings.setState({ view });
    note('defaults', 'ok', 'Saved. New runs use these defaults.');
    await refreshAppInfo();
  } catch (err) {
    note('defaults', 'error', message(err));
  }
}

export async function saveEndpoint(name: string, endpoint: EndpointDto | null): Promise<boolean> {
  if (!api) return false;
  try {
    const view = await api.request('settings.update', { providers: { [name]: endpoint } });
    useSettings.setState({ view });
    note('providers', 'ok', endpoint ? `Saved ${name}.` : `Removed ${name}.`);
    await refreshAppInfo();
    return true;
  } catch (err) {
    note('providers', 'error', message(err));
    return false;
  }
}

/** The model ids an endpoint offers, or why they could not be listed (the form then says how to type them). */
export async function fetchEndpointModels(
  api_: EndpointDto['api'],
  baseUrl: string,
  provider?: string,
  apiKey?: string,
): Promise<{ ids: string[] } | { error: string }> {
  if (!api) return { error: 'Not connected.' };
  try {
    const { ids } = await api.request('providers.fetchModels', { api: api_, baseUrl, ...(provider ? { provider } : {}), ...(apiKey ? { apiKey } : {}) });
    clearNote('providers');
    if (ids.length === 0) return { error: `${baseUrl} answered with no models.` };
    return { ids };
  } catch (err) {
    const text = message(err);
    return { error: /[.!?]$/.test(text) ? text : `${text}.` };
  }
}

export async function setEncryptedFallback(allowed: boolean): Promise<void> {
  if (!api) return;
  try {
    useSettings.setState({ view: await api.request('settings.update', { allowEncryptedFallback: allowed }) });
  } catch (err) {
    note('keys', 'error', message(err));
  }
}

export async function finishOnboarding(): Promise<void> {
  if (!api) return;
  try {
    useSettings.setState({ view: await api.request('settings.update', { onboarded: true }) });
  } catch {
    // the card just stays; nothing else depends on it
  }
}
