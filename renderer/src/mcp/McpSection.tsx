import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { McpServerDto, McpServerInputDto } from '../../../preload/contract.js';
import {
  connectServer,
  importConfig,
  loadMcp,
  removeServer,
  saveServer,
  setServerApproval,
  setServerEnabled,
  setTool,
  stopMcpPolling,
  useMcp,
} from './mcp-store.js';
import './mcp.css';

/** "KEY=VALUE" lines ↔ a map (the first "=" splits). */
const toMap = (text: string, sep = '='): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(sep);
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + sep.length).trim();
  }
  return out;
};
const fromMap = (m: Record<string, string>, sep = '='): string => Object.entries(m).map(([k, v]) => `${k}${sep}${v}`).join('\n');

function stateText(s: McpServerDto): string {
  if (s.state === 'disabled') return 'off';
  if (s.state === 'starting') return 'starting…';
  if (s.state === 'connected') return `connected · ${s.tools?.length ?? 0} tools`;
  if (s.state === 'failed') return 'failed';
  return s.tools ? `not running · ${s.tools.length} tools known` : 'not started yet';
}

/** X1: Settings › MCP servers — add, import, status, tools. */
export function McpSection() {
  const status = useMcp((s) => s.status);
  const note = useMcp((s) => s.note);
  const [editing, setEditing] = useState<McpServerDto | 'new' | undefined>();
  useEffect(() => {
    void loadMcp();
    return stopMcpPolling;
  }, []);
  return (
    <section id="settings-mcp" className="settings-section" aria-labelledby="h-mcp">
      <h2 id="h-mcp">MCP servers</h2>
      <p className="muted">
        Tools from Model Context Protocol servers you already use (GitHub, databases, browsers, docs). A server started here sees no API key and
        none of your other secrets — only what you give it below. Its tools ask before they run unless you allow them.
      </p>
      {status?.budgetWarning && (
        <p className="settings-note settings-note-error" role="status" data-testid="mcp-budget">
          {status.budgetWarning}
        </p>
      )}
      {status && status.servers.length === 0 && <p className="muted">No servers yet.</p>}
      <ul className="mcp-list">
        {status?.servers.map((s) => <ServerRow key={s.name} server={s} onEdit={() => setEditing(s)} />)}
      </ul>
      {editing ? (
        <ServerForm server={editing === 'new' ? undefined : editing} onDone={() => setEditing(undefined)} />
      ) : (
        <div className="mcp-actions">
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            Add a server
          </button>
        </div>
      )}
      <ImportForm />
      {note && (
        <p className={`settings-note settings-note-${note.kind}`} role={note.kind === 'error' ? 'alert' : 'status'} data-testid="note-mcp">
          {note.text}
        </p>
      )}
    </section>
  );
}

function ServerRow({ server: s, onEdit }: { server: McpServerDto; onEdit: () => void }) {
  const busy = useMcp((st) => !!st.busy[s.name]);
  return (
    <li className={`mcp-server mcp-${s.state}`} data-testid={`mcp-server-${s.name}`}>
      <div className="mcp-head">
        <strong>{s.name}</strong>
        <span className="mcp-badge">{s.transport === 'stdio' ? 'stdio' : s.transport === 'sse' ? 'SSE' : 'HTTP'}</span>
        <span className={`mcp-state mcp-state-${s.state}`} data-testid={`mcp-state-${s.name}`} role="status">
          {stateText(s)}
        </span>
        {s.source === 'config' && <span className="muted">config.json</span>}
        <label className="mcp-toggle">
          <input type="checkbox" aria-label={`Use ${s.name}`} checked={s.enabled} disabled={busy} onChange={(e) => void setServerEnabled(s.name, e.target.checked)} />
          on
        </label>
      </div>
      <div className="mcp-target muted">{s.url ?? [s.command, ...s.args].join(' ')}</div>
      {s.error && (
        <div className="mcp-error" role="alert">
          {s.error}
        </div>
      )}
      {s.authUrl && (
        <div className="mcp-auth">
          Authorization needed:{' '}
          <a href={s.authUrl} target="_blank" rel="noreferrer">
            open the consent page
          </a>
        </div>
      )}
      {s.stderr.length > 0 && (
        <details className="mcp-stderr">
          <summary>Server output (stderr)</summary>
          <pre>{s.stderr.join('\n')}</pre>
        </details>
      )}
      <div className="mcp-row-actions">
        <label>
          Approval
          <select aria-label={`Approval for ${s.name}`} value={s.approval} disabled={busy} onChange={(e) => void setServerApproval(s.name, e.target.value as McpServerDto['approval'])}>
            <option value="ask">Ask every time</option>
            <option value="auto">Always allow this server</option>
            <option value="deny">Never run its tools</option>
          </select>
        </label>
        <button type="button" className="btn" disabled={busy || !s.enabled} onClick={() => void connectServer(s.name)}>
          {s.state === 'connected' ? 'Reconnect' : 'Connect'}
        </button>
        <button type="button" className="btn" disabled={busy} onClick={onEdit}>
          Edit
        </button>
        {s.source === 'settings' && (
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void removeServer(s.name)}>
            Remove
          </button>
        )}
      </div>
      {s.tools && s.tools.length > 0 && (
        <details className="mcp-tools">
          <summary>
            Tools ({s.tools.filter((t) => t.enabled).length} of {s.tools.length} on, about {s.toolTokens} tokens per request)
          </summary>
          <ul>
            {s.tools.map((t) => (
              <li key={t.name} className="mcp-tool" data-testid={`mcp-tool-${s.name}-${t.name}`}>
                <label className="mcp-tool-name">
                  <input type="checkbox" aria-label={`Offer ${t.name}`} checked={t.enabled} disabled={busy} onChange={(e) => void setTool(s.name, t.name, { enabled: e.target.checked })} />
                  <code>{t.name}</code>
                </label>
                {t.annotations?.readOnlyHint && <span className="mcp-hint" title="The server says so; not checked">read-only</span>}
                {t.annotations?.destructiveHint && <span className="mcp-hint mcp-hint-warn" title="The server says so">destructive</span>}
                <label className="mcp-always">
                  <input type="checkbox" aria-label={`Always allow ${t.name}`} checked={t.alwaysAllow} disabled={busy} onChange={(e) => void setTool(s.name, t.name, { alwaysAllow: e.target.checked })} />
                  always allow
                </label>
                <span className="mcp-tool-desc muted">{t.description}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  );
}

function ServerForm({ server, onDone }: { server?: McpServerDto; onDone: () => void }) {
  const [name, setName] = useState(server?.name ?? '');
  const [type, setType] = useState<'stdio' | 'http' | 'sse'>(server?.transport ?? 'stdio');
  const [command, setCommand] = useState(server?.command ?? '');
  const [args, setArgs] = useState((server?.args ?? []).join('\n'));
  const [url, setUrl] = useState(server?.url ?? '');
  const [env, setEnv] = useState(fromMap(server?.env ?? {}));
  const [headers, setHeaders] = useState(fromMap(server?.headers ?? {}, ': '));
  const [secrets, setSecrets] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const secretMap = toMap(secrets);
    const input: McpServerInputDto =
      type === 'stdio'
        ? { command: command.trim(), args: args.split('\n').map((a) => a.trim()).filter(Boolean), env: toMap(env), secretEnv: secretMap }
        : { type, url: url.trim(), headers: toMap(headers, ':'), secretHeaders: secretMap };
    if (await saveServer(name.trim(), input, server?.name)) onDone();
  };
  const secretNames = server ? (type === 'stdio' ? server.secretEnv : server.secretHeaders) : [];
  return (
    <form className="mcp-form" onSubmit={(e) => void submit(e)} aria-label={server ? `Edit ${server.name}` : 'Add an MCP server'}>
      <label>
        Name
        <input aria-label="Server name" value={name} onChange={(e) => setName(e.target.value)} required pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" placeholder="github" />
      </label>
      <label>
        Kind
        <select aria-label="Server kind" value={type} onChange={(e) => setType(e.target.value as typeof type)}>
          <option value="stdio">Command (stdio)</option>
          <option value="http">Remote (Streamable HTTP)</option>
          <option value="sse">Remote (SSE, older servers)</option>
        </select>
      </label>
      {type === 'stdio' ? (
        <>
          <label className="grow">
            Command
            <input aria-label="Command" value={command} onChange={(e) => setCommand(e.target.value)} required placeholder="npx" />
          </label>
          <label className="wide">
            Arguments (one per line)
            <textarea aria-label="Arguments" rows={2} value={args} onChange={(e) => setArgs(e.target.value)} placeholder={'-y\n@modelcontextprotocol/server-github'} />
          </label>
          <label className="wide">
            Environment (NAME=value, one per line; shown here and stored in settings.json)
            <textarea aria-label="Environment" rows={2} value={env} onChange={(e) => setEnv(e.target.value)} />
          </label>
        </>
      ) : (
        <>
          <label className="grow wide">
            URL
            <input aria-label="URL" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://example.com/mcp" />
          </label>
          <label className="wide">
            Headers (Name: value, one per line)
            <textarea aria-label="Headers" rows={2} value={headers} onChange={(e) => setHeaders(e.target.value)} />
          </label>
        </>
      )}
      <label className="wide">
        Secret {type === 'stdio' ? 'environment variables' : 'headers'} (NAME=value; kept in the OS keychain, never shown again)
        <textarea aria-label="Secrets" rows={2} value={secrets} onChange={(e) => setSecrets(e.target.value)} autoComplete="off" spellCheck={false} />
        {secretNames.length > 0 && <span className="muted">In the keychain: {secretNames.map((n) => `${n} ••••`).join(', ')} (enter one again to replace it)</span>}
      </label>
      <div className="mcp-actions">
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={!name.trim()}>
          {server ? 'Save' : 'Add server'}
        </button>
      </div>
    </form>
  );
}

function ImportForm() {
  const [text, setText] = useState('');
  const file = useRef<HTMLInputElement>(null);
  return (
    <details className="mcp-import">
      <summary>Import from Claude Desktop, Cursor, Cline or VS Code</summary>
      <p className="muted">
        Open or paste a <code>claude_desktop_config.json</code> or <code>mcp.json</code>: every server in it is added (secrets written in it stay as
        written; move them to the keychain by editing the server).
      </p>
      <input
        ref={file}
        type="file"
        accept=".json,application/json"
        aria-label="Config file to import"
        onChange={async (e) => {
          const f = e.target.files?.[0];
          if (f && (await importConfig(await f.text())) && file.current) file.current.value = '';
        }}
      />
      <textarea aria-label="Config to import" rows={4} value={text} onChange={(e) => setText(e.target.value)} placeholder='{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}}' />
      <div className="mcp-actions">
        <button type="button" className="btn" disabled={!text.trim()} onClick={async () => (await importConfig(text)) && setText('')}>
          Import
        </button>
      </div>
    </details>
  );
}
