/** Settings › API keys (D4, D5): per provider, masked, ordered, tested; removable with Undo; the no-keychain banner. */
import { useEffect, useState, type FormEvent } from 'react';
import type { KeyProfileView, ProfileStatus } from '../../../../../preload/contract.js';
import { useChat } from '../../../store/chat-store.js';
import { addKey, dismissKeyUndo, moveKey, removeKey, setEncryptedFallback, testKey, undoRemoveKey, useSettings } from '../../../store/settings-store.js';
import { CopyButton } from '../../CopyButton.js';
import { Note } from './Note.js';

function statusText(p: ProfileStatus | undefined): string {
  if (!p) return '';
  if (p.state === 'cooling' || p.state === 'disabled') {
    const until = p.cooldownUntil ? ` until ${new Date(p.cooldownUntil).toLocaleTimeString()}` : '';
    return `${p.state === 'cooling' ? 'cooling down' : 'disabled'}${until}${p.reason ? ` (${p.reason.replace('_', ' ')})` : ''}`;
  }
  return p.state === 'missing' ? 'key missing' : 'ready';
}

export function KeysSection() {
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
      {canStore && (
        <p className="muted" data-testid="key-order">
          Keys go to your system keychain and are shown masked. For each provider the key that worked last is used first; when it is
          rate-limited or fails, the next one takes over — the one used longest ago first, then the order of this list (↑/↓). To always
          start with one key, mark it <code>preferred</code> in config.json.
        </p>
      )}
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
      <KeyUndo />
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

function KeyUndo() {
  const undo = useSettings((s) => s.keyUndo);
  useEffect(() => {
    if (!undo) return;
    const t = setTimeout(dismissKeyUndo, Math.max(0, undo.until - Date.now()));
    return () => clearTimeout(t);
  }, [undo]);
  if (!undo) return null;
  return (
    <p className="settings-note key-undo" role="status" data-testid="key-undo">
      Removed {undo.id}.{' '}
      <button type="button" className="btn btn-small" onClick={() => void undoRemoveKey()}>
        Undo
      </button>
    </p>
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
          {test.ok ? `Works (${test.model}, ${test.latencyMs} ms)` : test.message}
        </span>
      )}
    </li>
  );
}
