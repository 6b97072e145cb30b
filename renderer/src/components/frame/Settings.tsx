import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { EndpointDto, KeyProfileView, ProfileStatus, QueueMode, ThinkingLevel } from '../../../../preload/contract.js';
import { useChat } from '../../store/chat-store.js';
import { showView, useSessions } from '../../store/sessions-store.js';
import {
  addKey,
  fetchEndpointModels,
  loadSettings,
  moveKey,
  removeKey,
  saveEndpoint,
  setEncryptedFallback,
  setWorkspace,
  testKey,
  updateDefaults,
  useSettings,
  type SettingsState,
} from '../../store/settings-store.js';
import { folderName } from './format.js';
import { CheckpointsUsage } from '../../checkpoints/CheckpointsUsage.js';
import { McpSection } from '../../mcp/McpSection.js';
import { CopyButton } from '../CopyButton.js';
import { setTheme, THEME_CHOICES, useTheme, type ThemeChoice } from '../../lib/theme.js';
import { UsageSection } from '../../usage/UsageSection.js';

const LEVELS: ThinkingLevel[] = ['off', 'minimal', 'low', 'medium', 'high'];
const QUEUE: QueueMode[] = ['followup', 'collect', 'steer', 'interrupt'];

/** D4: keys, folder, providers and defaults — reachable from the top bar, the menu and Ctrl/Cmd+,. */
export function Settings() {
  const section = useSessions((s) => s.settingsSection);
  const view = useSettings((s) => s.view);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void loadSettings();
  }, []);
  useEffect(() => {
    if (section) root.current?.querySelector(`#settings-${section}`)?.scrollIntoView({ block: 'start' });
  }, [section, view !== undefined]);
  return (
    <main className="settings" ref={root} aria-label="Settings">
      <div className="settings-head">
        <h1>Settings</h1>
        <button type="button" className="btn" onClick={() => showView('chat')}>
          Back to chat
        </button>
      </div>
      {!view ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <KeysSection />
          <FolderSection />
          <ProvidersSection />
          <DefaultsSection />
          <CheckpointsUsage />
          <UsageSection />
          <McpSection />
          <AppearanceSection />
          <p className="muted settings-file">Stored in {view.file}. Keys are never stored there.</p>
        </>
      )}
    </main>
  );
}

function Note({ section }: { section: keyof SettingsState['notes'] }) {
  const n = useSettings((s) => s.notes[section]);
  if (!n) return null;
  return (
    <p className={`settings-note settings-note-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid={`note-${section}`}>
      {n.text}
    </p>
  );
}

function statusText(p: ProfileStatus | undefined): string {
  if (!p) return '';
  if (p.state === 'cooling' || p.state === 'disabled') {
    const until = p.cooldownUntil ? ` until ${new Date(p.cooldownUntil).toLocaleTimeString()}` : '';
    return `${p.state === 'cooling' ? 'cooling down' : 'disabled'}${until}${p.reason ? ` (${p.reason.replace('_', ' ')})` : ''}`;
  }
  return p.state === 'missing' ? 'key missing' : 'ready';
}

function KeysSection() {
  const view = useSettings((s) => s.view)!;
  const profiles = useSettings((s) => s.profiles);
  const statuses = useSettings((s) => s.statuses);
  const models = useChat((s) => s.models);
  const providers = [...new Set(['anthropic', 'openai', ...models.filter((m) => !m.demo).map((m) => m.provider)])];
  const [provider, setProvider] = useState(providers[0] ?? 'anthropic');
  const [label, setLabel] = useState('default');
  const [key, setKey] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await addKey(provider, label.trim(), key)) {
      setKey('');
      setLabel('default');
    }
  };
  const envProfiles = statuses.filter((s) => s.source === 'env');
  // D5: without a keychain (and without the app's encrypted store) nothing can be saved: the form is off and ONE
  // message says why, how to fix it, and the route that works now (a key in an environment variable).
  const canStore = view.keychain.available || (view.encryptedFallback.supported && view.encryptedFallback.allowed);
  return (
    <section id="settings-keys" className="settings-section" aria-labelledby="h-keys">
      <h2 id="h-keys">API keys</h2>
      {!view.keychain.available && (
        <div className="keychain-banner" role="alert" data-testid="keychain-banner">
          <strong>Keys cannot be saved here. {view.keychain.reason}.</strong>
          <KeychainFix text={view.keychain.fix ?? ''} />
          <span>
            Or skip the keychain: start AgentDesk with the key in an environment variable — <code>ANTHROPIC_API_KEY</code> or{' '}
            <code>OPENAI_API_KEY</code> (another provider: an <code>authProfiles</code> entry with <code>apiKeyEnv</code> in config.json).
            Such keys show in this list and work at once. Nothing is ever written in clear text.
          </span>
          {view.encryptedFallback.supported && (
            <label className="check">
              <input type="checkbox" checked={view.encryptedFallback.allowed} onChange={(e) => void setEncryptedFallback(e.target.checked)} />
              Store keys encrypted by the app instead (operating-system encryption, this computer only)
            </label>
          )}
        </div>
      )}
      {canStore && <p className="muted">Keys go to your system keychain and are shown masked. For each provider, keys are tried top to bottom.</p>}
      {providers.map((prov) => {
        const mine = profiles.filter((p) => p.provider === prov);
        const envs = envProfiles.filter((p) => p.provider === prov);
        if (mine.length === 0 && envs.length === 0) return null;
        return (
          <div key={prov} className="key-group">
            <h3>{prov}</h3>
            <ul className="key-list">
              {mine.map((p, i) => (
                <KeyRow key={p.id} profile={p} status={statuses.find((s) => s.id === p.id)} first={i === 0} last={i === mine.length - 1} />
              ))}
              {envs.map((p) => (
                <li key={p.id} className="key-row" data-testid="key-row">
                  <span className="key-id">{p.id}</span>
                  <code className="key-mask">{p.masked ?? '—'}</code>
                  <span className="muted">from the environment · {statusText(p)}</span>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
      <form className="key-add" onSubmit={(e) => void submit(e)} aria-disabled={!canStore}>
        <fieldset className="key-add-fields" disabled={!canStore}>
        <label>
          Provider
          <select aria-label="Key provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
            {providers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Label
          <input aria-label="Key label" value={label} onChange={(e) => setLabel(e.target.value)} pattern="[A-Za-z0-9_.\-]+" required />
        </label>
        <label className="grow">
          API key
          <input aria-label="API key" type="password" autoComplete="off" spellCheck={false} value={key} onChange={(e) => setKey(e.target.value)} required />
        </label>
        <button type="submit" className="btn btn-primary" disabled={key.trim() === ''}>
          Add key
        </button>
        </fieldset>
      </form>
      <Note section="keys" />
    </section>
  );
}

/** The fix line; a command in it (the keyring started in a D-Bus session of its own) as code with a Copy button. */
function KeychainFix({ text }: { text: string }) {
  const at = text.indexOf('dbus-run-session -- ');
  if (at < 0) return <span className="keychain-fix">{text}</span>;
  const command = text.slice(at);
  return (
    <span className="keychain-fix">
      {text.slice(0, at).trim()}
      <span className="keychain-command">
        <code data-testid="keychain-command">{command}</code>
        <CopyButton text={command} label="Copy command" />
      </span>
    </span>
  );
}

function KeyRow({ profile, status, first, last }: { profile: KeyProfileView; status?: ProfileStatus; first: boolean; last: boolean }) {
  const test = useSettings((s) => s.tests[profile.id]);
  return (
    <li className="key-row" data-testid="key-row" data-profile={profile.id}>
      <span className="key-id">{profile.label}</span>
      <code className="key-mask" data-testid="key-mask">{profile.masked ?? 'unreadable'}</code>
      <span className={`key-state key-state-${status?.state ?? 'ok'}`}>{statusText(status)}</span>
      {status?.lastError && <span className="muted key-error" title={status.lastError}>last error: {status.lastError}</span>}
      <span className="key-actions">
        <button type="button" className="icon-btn" aria-label={`Move ${profile.id} up`} disabled={first} onClick={() => void moveKey(profile.id, -1)}>
          ↑
        </button>
        <button type="button" className="icon-btn" aria-label={`Move ${profile.id} down`} disabled={last} onClick={() => void moveKey(profile.id, 1)}>
          ↓
        </button>
        <button type="button" className="btn" onClick={() => void testKey(profile.id)} disabled={test === 'running'}>
          Test key
        </button>
        <button type="button" className="btn btn-danger" onClick={() => void removeKey(profile.id)}>
          Remove
        </button>
      </span>
      {test && test !== 'running' && (
        <span className={`key-test ${test.ok ? 'ok' : 'bad'}`} role="status" data-testid="key-test">
          {test.ok ? `Works (${test.model}, ${test.latencyMs} ms)` : `${test.reason.replace('_', ' ')}: ${test.message}`}
        </span>
      )}
    </li>
  );
}

function FolderSection() {
  const view = useSettings((s) => s.view)!;
  const [path, setPath] = useState('');
  return (
    <section id="settings-folder" className="settings-section" aria-labelledby="h-folder">
      <h2 id="h-folder">Workspace folder</h2>
      <p>
        The assistant works in <code data-testid="current-folder">{view.workspace}</code>. A change applies to new runs; a running reply
        finishes where it started.
      </p>
      {view.folderPicker === 'dialog' ? (
        <button type="button" className="btn btn-primary" onClick={() => void setWorkspace({ dialog: true })}>
          Choose folder…
        </button>
      ) : (
        <form
          className="folder-form"
          onSubmit={(e) => {
            e.preventDefault();
            void setWorkspace({ path }).then((ok) => ok && setPath(''));
          }}
        >
          <input aria-label="Folder path" placeholder="/home/me/project" value={path} onChange={(e) => setPath(e.target.value)} />
          <button type="submit" className="btn btn-primary" disabled={path.trim() === ''}>
            Use folder
          </button>
        </form>
      )}
      {view.recentWorkspaces.length > 0 && (
        <ul className="recent-folders" aria-label="Recent folders">
          {view.recentWorkspaces.map((f) => (
            <li key={f}>
              <button type="button" className="link" title={f} disabled={f === view.workspace} onClick={() => void setWorkspace({ path: f })}>
                {folderName(f)} <span className="muted">{f}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <Note section="folder" />
    </section>
  );
}

function ProvidersSection() {
  const view = useSettings((s) => s.view)!;
  const [name, setName] = useState('');
  const [api, setApi] = useState<EndpointDto['api']>('openai-chat');
  const [baseUrl, setBaseUrl] = useState('http://127.0.0.1:11434/v1');
  const [models, setModels] = useState('');
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const ids = models.split(/[\n,]/).map((m) => m.trim()).filter(Boolean);
    if (await saveEndpoint(name.trim(), { api, baseUrl: baseUrl.trim(), models: ids.map((id) => ({ id })) })) {
      setName('');
      setModels('');
    }
  };
  const fetchList = async () => {
    const ids = await fetchEndpointModels(api, baseUrl.trim(), name.trim() || undefined);
    if (ids) setModels(ids.join('\n'));
  };
  return (
    <section id="settings-providers" className="settings-section" aria-labelledby="h-providers">
      <h2 id="h-providers">Providers</h2>
      <p className="muted">
        Anthropic and OpenAI are built in. Add an OpenAI-compatible server (Ollama, LM Studio, vLLM, OpenRouter) by its base URL.
      </p>
      {Object.entries(view.providers).length > 0 && (
        <ul className="endpoint-list">
          {Object.entries(view.providers).map(([n, ep]) => (
            <li key={n} className="endpoint-row">
              <strong>{n}</strong> <span className="muted">{ep.api} · {ep.baseUrl}</span>
              <span className="muted">{ep.models.map((m) => m.id).join(', ') || 'no models'}</span>
              <button type="button" className="btn btn-danger" onClick={() => void saveEndpoint(n, null)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="endpoint-form" onSubmit={(e) => void save(e)}>
        <label>
          Name
          <input aria-label="Provider name" placeholder="ollama" value={name} onChange={(e) => setName(e.target.value)} required pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" />
        </label>
        <label>
          API
          <select aria-label="Provider API" value={api} onChange={(e) => setApi(e.target.value as EndpointDto['api'])}>
            <option value="openai-chat">OpenAI Chat Completions</option>
            <option value="openai-responses">OpenAI Responses</option>
            <option value="anthropic">Anthropic Messages</option>
          </select>
        </label>
        <label className="grow">
          Base URL
          <input aria-label="Base URL" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required />
        </label>
        <label className="grow wide">
          Models (one per line)
          <textarea aria-label="Models" rows={3} value={models} onChange={(e) => setModels(e.target.value)} />
        </label>
        <div className="endpoint-actions">
          <button type="button" className="btn" onClick={() => void fetchList()}>
            Fetch model list
          </button>
          <button type="submit" className="btn btn-primary" disabled={!name.trim()}>
            Save provider
          </button>
        </div>
      </form>
      <Note section="providers" />
    </section>
  );
}

function DefaultsSection() {
  const d = useSettings((s) => s.view!.defaults);
  const models = useChat((s) => s.models);
  return (
    <section id="settings-defaults" className="settings-section" aria-labelledby="h-defaults">
      <h2 id="h-defaults">Defaults for new chats</h2>
      <div className="defaults-grid">
        <label>
          Model
          <select aria-label="Default model" value={d.model ?? ''} onChange={(e) => void updateDefaults({ model: e.target.value || undefined })}>
            <option value="">Automatic (a model with a key, else the demo)</option>
            {models.map((m) => (
              <option key={m.ref} value={m.ref}>
                {m.demo ? 'Demo (offline)' : m.ref}
              </option>
            ))}
          </select>
        </label>
        <label>
          Thinking
          <select aria-label="Default thinking" value={d.thinking ?? ''} onChange={(e) => void updateDefaults({ thinking: (e.target.value || undefined) as ThinkingLevel | undefined })}>
            <option value="">Off (default)</option>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label>
          Messages sent while a reply runs
          <select aria-label="Queue mode" value={d.queueMode ?? 'followup'} onChange={(e) => void updateDefaults({ queueMode: e.target.value as QueueMode })}>
            {QUEUE.map((q) => (
              <option key={q} value={q}>
                {q}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool approval
          <select aria-label="Approval mode" value={d.approval ?? 'ask'} onChange={(e) => void updateDefaults({ approval: e.target.value as 'ask' | 'auto' | 'deny' })}>
            <option value="ask">Ask me</option>
            <option value="auto">Allow automatically</option>
            <option value="deny">Deny</option>
          </select>
        </label>
        <label>
          Run timeout (seconds)
          <input
            aria-label="Run timeout"
            type="number"
            min={1}
            max={604800}
            defaultValue={d.timeoutSeconds ?? 600}
            onBlur={(e) => {
              const v = Number(e.target.value);
              if (Number.isFinite(v) && v > 0 && v !== (d.timeoutSeconds ?? 600)) void updateDefaults({ timeoutSeconds: v });
            }}
          />
        </label>
        <label className="check">
          <input type="checkbox" aria-label="Sandbox" checked={d.sandbox ?? true} onChange={(e) => void updateDefaults({ sandbox: e.target.checked })} />
          Run commands in a sandbox (recommended)
        </label>
        <label className="check">
          <input type="checkbox" aria-label="Verbose replies" checked={d.verbose ?? false} onChange={(e) => void updateDefaults({ verbose: e.target.checked })} />
          Verbose replies: show the reasoning and a line for each tool call (a chat's /verbose wins)
        </label>
      </div>
      <Note section="defaults" />
    </section>
  );
}

const THEME_LABEL: Record<ThemeChoice, string> = { system: 'Same as the system', light: 'Light', dark: 'Dark' };

/** Issue 18 item 17: the theme of this window (system / light / dark), also in the command palette. */
function AppearanceSection() {
  const choice = useTheme((s) => s.choice);
  return (
    <section id="settings-appearance" className="settings-section" aria-labelledby="h-appearance">
      <h2 id="h-appearance">Appearance</h2>
      <div className="theme-choices" role="radiogroup" aria-label="Theme">
        {THEME_CHOICES.map((t) => (
          <label key={t} className="check">
            <input type="radio" name="theme" value={t} checked={choice === t} onChange={() => setTheme(t)} />
            {THEME_LABEL[t]}
          </label>
        ))}
      </div>
    </section>
  );
}
