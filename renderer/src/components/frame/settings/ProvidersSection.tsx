/**
 * Settings › Providers (issue 18 item 16): OpenAI-compatible and Anthropic-style servers by base URL — picked from
 * presets (OpenRouter, Ollama, LM Studio, vLLM, DeepSeek, Groq…), edited in place, removed; the key goes in the
 * same form; the model list is fetched from the server, and when that fails the form says how to type it.
 */
import { useRef, useState, type FormEvent } from 'react';
import type { EndpointDto } from '../../../../../preload/contract.js';
import { PROVIDER_PRESETS, type ProviderPreset } from '../../../lib/provider-presets.js';
import { showView } from '../../../store/sessions-store.js';
import { addKey, fetchEndpointModels, saveEndpoint, useSettings } from '../../../store/settings-store.js';
import { Note } from './Note.js';

interface Form {
  name: string;
  api: EndpointDto['api'];
  baseUrl: string;
  models: string;
  key: string;
}

const EMPTY: Form = { name: '', api: 'openai-chat', baseUrl: '', models: '', key: '' };

export function ProvidersSection() {
  const view = useSettings((s) => s.view)!;
  const profiles = useSettings((s) => s.profiles);
  const [form, setForm] = useState<Form>(EMPTY);
  const [editing, setEditing] = useState<string>();
  const [preset, setPreset] = useState<ProviderPreset>();
  const [builtIn, setBuiltIn] = useState<ProviderPreset>();
  const [fetchProblem, setFetchProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  /**
   * Counts the times the form was given another purpose (a preset chosen, a provider to edit): a save empties the form
   * when it ends only if the person has not done so meanwhile — the saved row appears before the key is stored, and
   * an Edit clicked on it then would otherwise be undone by the save's late reset.
   */
  const purpose = useRef(0);

  const choosePreset = (id: string) => {
    const p = PROVIDER_PRESETS.find((x) => x.id === id);
    setFetchProblem(undefined);
    if (!p) return setPreset(undefined);
    if (p.builtIn) {
      setBuiltIn(p);
      setPreset(undefined);
      return;
    }
    setBuiltIn(undefined);
    setPreset(p);
    setEditing(undefined);
    purpose.current++;
    let name = p.id;
    for (let i = 2; Object.hasOwn(view.providers, name); i++) name = `${p.id}-${i}`;
    setForm({ name, api: p.api, baseUrl: p.baseUrl, models: '', key: '' });
  };

  const edit = (name: string, ep: EndpointDto) => {
    purpose.current++;
    setEditing(name);
    setPreset(PROVIDER_PRESETS.find((x) => x.baseUrl === ep.baseUrl));
    setBuiltIn(undefined);
    setFetchProblem(undefined);
    setForm({ name, api: ep.api, baseUrl: ep.baseUrl, models: ep.models.map((m) => m.id).join('\n'), key: '' });
  };

  const reset = () => {
    setForm(EMPTY);
    setEditing(undefined);
    setPreset(undefined);
    setFetchProblem(undefined);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const name = form.name.trim();
    const ids = form.models.split(/[\n,]/).map((m) => m.trim()).filter(Boolean);
    const keep = editing ? view.providers[editing]?.models ?? [] : [];
    // an edit keeps what is known of the models it keeps (context window, max tokens)
    const models = ids.map((id) => keep.find((m) => m.id === id) ?? { id });
    const saving = purpose.current;
    setBusy(true);
    try {
      if (!(await saveEndpoint(name, { api: form.api, baseUrl: form.baseUrl.trim(), models }))) return;
      if (form.key.trim()) {
        const taken = new Set(profiles.filter((p) => p.provider === name).map((p) => p.label));
        let label = 'default';
        for (let i = 2; taken.has(label); i++) label = `key${i}`;
        if (!(await addKey(name, label, form.key.trim()))) return;
      }
      if (purpose.current === saving) reset();
    } finally {
      setBusy(false);
    }
  };

  const fetchList = async () => {
    setBusy(true);
    setFetchProblem(undefined);
    try {
      const result = await fetchEndpointModels(form.api, form.baseUrl.trim(), form.name.trim() || undefined, form.key.trim() || undefined);
      if ('ids' in result) set({ models: result.ids.join('\n') });
      else {
        const example = preset?.example ?? 'llama3.1:8b';
        setFetchProblem(
          `${result.error} Type the model names into the box instead, one per line, exactly as ${preset?.label.replace(/ \(.*\)$/, '') ?? 'the server'} names them (for example ${example}).`,
        );
      }
    } finally {
      setBusy(false);
    }
  };

  const entries = Object.entries(view.providers);
  return (
    <section id="settings-providers" className="settings-section" aria-labelledby="h-providers">
      <h2 id="h-providers">Providers</h2>
      <p className="muted">
        Anthropic and OpenAI are built in (they only need a key). Add another provider from the list, or any OpenAI-compatible server by its base
        URL.
      </p>
      {entries.length > 0 && (
        <ul className="endpoint-list">
          {entries.map(([n, ep]) => (
            <li key={n} className="endpoint-row" data-testid="endpoint-row" data-provider={n}>
              <strong>{n}</strong>
              <span className="muted endpoint-url">
                {ep.api} · {ep.baseUrl}
              </span>
              <span className="muted endpoint-models">{ep.models.map((m) => m.id).join(', ') || 'no models'}</span>
              <span className="endpoint-actions">
                <button type="button" className="btn" onClick={() => edit(n, ep)} aria-label={`Edit ${n}`}>
                  Edit
                </button>
                <button type="button" className="btn btn-danger" onClick={() => void saveEndpoint(n, null)} aria-label={`Remove ${n}`}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <form className="endpoint-form" onSubmit={(e) => void save(e)} aria-label={editing ? `Edit ${editing}` : 'Add a provider'}>
        {editing ? (
          <p className="wide endpoint-editing">
            Editing <strong>{editing}</strong>.{' '}
            <button type="button" className="link" onClick={reset}>
              Cancel
            </button>
          </p>
        ) : (
          <label className="wide">
            Start from
            <select aria-label="Provider preset" value={preset?.id ?? builtIn?.id ?? ''} onChange={(e) => choosePreset(e.target.value)}>
              <option value="">Another server (type its base URL)</option>
              {PROVIDER_PRESETS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                  {p.builtIn ? ' — built in' : ''}
                </option>
              ))}
            </select>
          </label>
        )}
        {builtIn ? (
          <p className="wide" data-testid="builtin-note">
            {builtIn.label} is built in: it needs only a key.{' '}
            <button type="button" className="btn btn-small" onClick={() => showView('settings', 'keys')}>
              Add a key
            </button>
          </p>
        ) : (
          <>
            <label>
              Name
              <input
                aria-label="Provider name"
                placeholder="ollama"
                value={form.name}
                disabled={editing !== undefined}
                onChange={(e) => set({ name: e.target.value })}
                required
                pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
              />
            </label>
            <label>
              API
              <select aria-label="Provider API" value={form.api} onChange={(e) => set({ api: e.target.value as EndpointDto['api'] })}>
                <option value="openai-chat">OpenAI Chat Completions</option>
                <option value="openai-responses">OpenAI Responses</option>
                <option value="anthropic">Anthropic Messages</option>
              </select>
            </label>
            <label className="grow">
              Base URL
              <input aria-label="Base URL" placeholder="http://127.0.0.1:11434/v1" value={form.baseUrl} onChange={(e) => set({ baseUrl: e.target.value })} required />
            </label>
            <label className="grow wide">
              API key {preset && !preset.needsKey ? '(not needed for a server on this computer)' : '(stored in your keychain)'}
              <input
                aria-label="Provider API key"
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={form.key}
                placeholder={editing ? 'Leave empty to keep its keys' : ''}
                onChange={(e) => set({ key: e.target.value })}
              />
            </label>
            <label className="grow wide">
              Models (one per line)
              <textarea aria-label="Models" rows={3} value={form.models} placeholder={preset?.example ?? ''} onChange={(e) => set({ models: e.target.value })} />
            </label>
            {fetchProblem && (
              <p className="wide field-problem" role="alert" data-testid="fetch-problem">
                {fetchProblem}
              </p>
            )}
            <div className="endpoint-actions wide">
              <button type="button" className="btn" disabled={busy || form.baseUrl.trim() === ''} onClick={() => void fetchList()}>
                Fetch model list
              </button>
              <button type="submit" className="btn btn-primary" disabled={busy || !form.name.trim()}>
                {editing ? 'Save changes' : 'Save provider'}
              </button>
            </div>
          </>
        )}
      </form>
      <Note section="providers" />
    </section>
  );
}
