/**
 * Settings › MCP (X1): the servers' live status from `mcp.status` (polled while one is starting), and the actions —
 * add, edit, remove, switch on/off, per-tool switches and "always allow", connect, import a config file. Secret
 * values typed here go to main once (into the keychain) and never come back.
 */
import { create } from 'zustand';
import type { AgentDeskApi, McpServerInputDto, McpStatusDto } from '../../../preload/contract.js';

interface McpState {
  status?: McpStatusDto;
  /** One line: the last problem or confirmation. */
  note?: { kind: 'error' | 'ok'; text: string };
  /** Servers with a request on its way (buttons disabled). */
  busy: Record<string, true>;
}

export const useMcp = create<McpState>(() => ({ busy: {} }));

let api: AgentDeskApi | undefined;
let poll: ReturnType<typeof setTimeout> | undefined;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function connectMcp(a: AgentDeskApi): void {
  api = a;
}

function setStatus(status: McpStatusDto): void {
  useMcp.setState({ status });
  // A server is starting: look again shortly (the status is live, not pushed).
  if (poll) clearTimeout(poll);
  poll = status.servers.some((s) => s.state === 'starting') ? setTimeout(() => void loadMcp(), 400) : undefined;
}

export async function loadMcp(): Promise<void> {
  if (!api) return;
  try {
    setStatus(await api.request('mcp.status', {}));
  } catch (err) {
    useMcp.setState({ note: { kind: 'error', text: `Could not load the MCP servers: ${message(err)}` } });
  }
}

export function stopMcpPolling(): void {
  if (poll) clearTimeout(poll);
  poll = undefined;
}

async function act(server: string | undefined, run: (a: AgentDeskApi) => Promise<McpStatusDto>, ok?: string): Promise<boolean> {
  if (!api) return false;
  if (server) useMcp.setState((s) => ({ busy: { ...s.busy, [server]: true } }));
  try {
    setStatus(await run(api));
    useMcp.setState({ note: ok ? { kind: 'ok', text: ok } : undefined });
    return true;
  } catch (err) {
    useMcp.setState({ note: { kind: 'error', text: message(err) } });
    return false;
  } finally {
    if (server) useMcp.setState((s) => {
      const { [server]: _, ...busy } = s.busy;
      return { busy };
    });
  }
}

export async function saveServer(name: string, server: McpServerInputDto, previousName?: string): Promise<boolean> {
  const saved = await act(name, (a) => a.request('mcp.save', { name, server, ...(previousName ? { previousName } : {}) }), `Saved "${name}".`);
  if (saved) void connectServer(name);
  return saved;
}

export const connectServer = (name: string) => act(name, (a) => a.request('mcp.connect', { name }));
export const removeServer = (name: string) => act(name, (a) => a.request('mcp.remove', { name }), `Removed "${name}".`);
export const setServerEnabled = (name: string, enabled: boolean) => act(name, (a) => a.request('mcp.setEnabled', { name, enabled }));
export const setServerApproval = (name: string, approval: 'ask' | 'auto' | 'deny') => act(name, (a) => a.request('mcp.setApproval', { name, approval }));
export const setTool = (name: string, tool: string, change: { enabled?: boolean; alwaysAllow?: boolean }) =>
  act(name, (a) => a.request('mcp.setTool', { name, tool, ...change }));

export async function importConfig(text: string): Promise<boolean> {
  if (!api) return false;
  try {
    const r = await api.request('mcp.import', { text });
    setStatus(r.status);
    const added = r.added.length > 0 ? `Imported ${r.added.map((n) => `"${n}"`).join(', ')}.` : 'Nothing imported.';
    useMcp.setState({ note: { kind: r.added.length > 0 ? 'ok' : 'error', text: [added, ...r.notes].join(' ') } });
    for (const n of r.added) void connectServer(n);
    return r.added.length > 0;
  } catch (err) {
    useMcp.setState({ note: { kind: 'error', text: message(err) } });
    return false;
  }
}
