/**
 * X1: one MCP server — one client shared by every run of the process. Connects when first needed (stdio through
 * GroupStdioTransport; remote through Streamable HTTP, falling back to SSE when the server answers 404 / 405),
 * lists its tools (refreshed on `tools/list_changed`), calls them with the run's abort signal and the server's
 * timeout (both cancel the request with `notifications/cancelled`), forwards progress notifications, and
 * reconnects with backoff when a server that was connected dies. Its status (idle / starting / connected with N
 * tools / failed with the error and the last lines of its stderr) is what Settings and `agentdesk mcp` show.
 *
 * The SDK is imported here only when a server is started: a run that uses no server never loads it.
 */
import type { Client, SSEClientTransport, StreamableHTTPClientTransport, Tool as SdkTool, Transport } from '@modelcontextprotocol/client';
import type { McpOAuthProvider } from './oauth.js';
import { transportOf, type McpServerConfig } from './config.js';
import { GroupStdioTransport } from './stdio-transport.js';
import type { McpServerState, McpToolDef } from './types.js';
import { ToolError } from '../tools/types.js';
import { mapToolResult } from './result.js';
import { visibleLine, visibleToolDefs } from './display-text.js';
import type { ToolOutput } from '../tools/types.js';

const STDERR_LINES = 20;
const CONNECT_TIMEOUT_MS = 30_000;
const MAX_RECONNECTS = 5;

/** Backoff before reconnect attempt n (1-based): 0.5 s, 1 s, 2 s, 4 s, 8 s … at most 30 s. */
export const reconnectDelayMs = (attempt: number): number => Math.min(30_000, 500 * 2 ** Math.max(0, attempt - 1));

export interface ConnectionDeps {
  /** The server's whole environment for stdio (scrubbed, plus its own configured env and keychain secrets). */
  stdioEnv: () => Promise<Record<string, string>>;
  /** Headers of a remote server, secrets from the keychain included. */
  headers: () => Promise<Record<string, string>>;
  /** OAuth for a remote server: a provider per connection attempt (undefined: none). */
  authProvider?: () => McpOAuthProvider | undefined;
  /** Called on every status change and when the tool list changes. */
  onChange: () => void;
  timers?: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };
  clientVersion: string;
}

type Sdk = typeof import('@modelcontextprotocol/client');

let sdkPromise: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdkPromise ??= import('@modelcontextprotocol/client'));

const statusOf = (err: unknown): number | undefined => {
  const e = err as { status?: unknown; data?: { status?: unknown }; code?: unknown };
  if (typeof e?.status === 'number') return e.status;
  if (typeof e?.data?.status === 'number') return e.data.status;
  return undefined;
};

/** One line for a failure to start or connect. */
export function describeConnectError(err: unknown, cfg: McpServerConfig): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT' && cfg.command) return `command not found: ${cfg.command}`;
  if (e?.code === 'EACCES' && cfg.command) return `command not executable: ${cfg.command}`;
  if (e?.code === 'ECONNREFUSED') return `connection refused: ${cfg.url ?? ''}`.trim();
  const msg = visibleLine(String(e?.message ?? err).split('\n')[0]!).trim();
  return msg || 'failed to start';
}

export class McpConnection {
  state: McpServerState = 'idle';
  error: string | undefined;
  tools: McpToolDef[] | undefined;
  /** Tools of the last listing left out: names a person could not be shown as they are (display-text.ts). */
  toolsLeftOut = 0;
  serverVersion: string | undefined;
  /** The last lines the server wrote to stderr (stdio). */
  readonly stderrTail: string[] = [];
  /** Set while an OAuth consent is pending: the URL to open. */
  authUrl: string | undefined;
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private reconnects = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private closing = false;
  private stderrPartial = '';
  /** A consent in progress: resolves once the server is connected with the new token. */
  private consent: Promise<void> | undefined;
  private pendingAuth: McpOAuthProvider | undefined;

  constructor(
    readonly name: string,
    public config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {}

  /** Connects if not connected (one attempt in flight at a time); rejects with the one-line reason. */
  ensureConnected(): Promise<void> {
    if (this.state === 'connected' && this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private setTools(listed: SdkTool[]): void {
    const { tools, leftOut } = visibleToolDefs(listed.map(toDef));
    this.tools = tools;
    this.toolsLeftOut = leftOut;
  }

  private setState(state: McpServerState, error?: string): void {
    this.state = state;
    this.error = error;
    this.deps.onChange();
  }

  private onStderr = (text: string): void => {
    const lines = (this.stderrPartial + text).split('\n');
    this.stderrPartial = lines.pop() ?? '';
    // What the server writes is shown in status and error lines: never a terminal control or hidden text.
    for (const line of lines) if (line.trim()) this.stderrTail.push(visibleLine(line.slice(0, 500)));
    if (this.stderrPartial.length > 64 * 1024) this.stderrPartial = this.stderrPartial.slice(-500);
    if (this.stderrTail.length > STDERR_LINES) this.stderrTail.splice(0, this.stderrTail.length - STDERR_LINES);
  };

  private async connect(): Promise<void> {
    this.closing = false;
    this.setState('starting');
    // A stdio server is spawned first: its start-up and the SDK's load overlap.
    const stdio = transportOf(this.config) === 'stdio' ? await this.spawnStdio().catch((err: unknown) => err as Error) : undefined;
    const sdk = await loadSdk();
    const client = new sdk.Client(
      { name: 'AgentDesk', version: this.deps.clientVersion },
      {
        listChanged: {
          tools: {
            onChanged: (err, tools) => {
              if (err || !tools || this.client !== client) return;
              this.setTools(tools);
              this.deps.onChange();
            },
          },
        },
      },
    );
    try {
      if (stdio instanceof Error) throw stdio;
      await this.connectTransport(sdk, client, stdio);
      const { tools } = await client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS });
      this.setTools(tools);
      const version = client.getServerVersion()?.version;
      this.serverVersion = typeof version === 'string' ? visibleLine(version).slice(0, 100) : undefined;
      this.client = client;
      this.reconnects = 0;
      this.authUrl = undefined;
      client.onclose = () => this.onClosed(client);
      this.setState('connected');
    } catch (err) {
      await client.close().catch(() => {});
      const reason = this.authUrl && err instanceof sdk.UnauthorizedError ? `authorization needed: open ${this.authUrl}` : describeConnectError(err, this.config);
      const tail = this.stderrTail.at(-1);
      this.setState('failed', tail && !reason.includes(tail) ? `${reason} (stderr: ${tail})` : reason);
      throw new Error(this.error);
    }
  }

  private async spawnStdio(): Promise<GroupStdioTransport> {
    const transport = new GroupStdioTransport({
      command: this.config.command!,
      args: this.config.args,
      env: await this.deps.stdioEnv(),
      cwd: this.config.cwd,
      onStderr: this.onStderr,
    });
    await transport.start();
    return transport;
  }

  private async connectTransport(sdk: Sdk, client: Client, stdio: GroupStdioTransport | undefined): Promise<void> {
    const opts = { timeout: CONNECT_TIMEOUT_MS };
    if (stdio) {
      try {
        await client.connect(stdio, opts);
      } catch (err) {
        await stdio.close();
        throw err;
      }
      return;
    }
    const kind = transportOf(this.config);
    const url = new URL(this.config.url!);
    const headers = await this.deps.headers();
    const provider = this.deps.authProvider?.();
    if (provider) await provider.prepare();
    const common = { requestInit: { headers }, ...(provider ? { authProvider: provider } : {}) };
    let transport: StreamableHTTPClientTransport | SSEClientTransport | undefined;
    try {
      if (kind === 'sse') {
        transport = new sdk.SSEClientTransport(url, common);
        await client.connect(transport as Transport, opts);
      } else {
        try {
          transport = new sdk.StreamableHTTPClientTransport(url, common);
          await client.connect(transport as Transport, opts);
        } catch (err) {
          const status = statusOf(err);
          // An older server (HTTP+SSE, protocol 2024-11-05): POST to its URL answers 404 or 405 — try SSE there.
          if (status !== 404 && status !== 405) throw err;
          transport = new sdk.SSEClientTransport(url, common);
          await client.connect(transport as Transport, opts);
        }
      }
      provider?.close();
    } catch (err) {
      // OAuth (X1): the server wants a token the person has to consent to. The URL is shown (and, in the app,
      // opened); the consent comes back to the provider's loopback redirect, then the connection is made again.
      if (provider && transport && err instanceof sdk.UnauthorizedError && provider.authorizationUrl) {
        this.authUrl = provider.authorizationUrl.href;
        this.consent = this.awaitConsent(provider, transport);
        this.consent.catch(() => {});
      } else provider?.close();
      throw err;
    }
  }

  private async awaitConsent(provider: McpOAuthProvider, transport: StreamableHTTPClientTransport | SSEClientTransport): Promise<void> {
    this.pendingAuth?.close();
    this.pendingAuth = provider;
    try {
      const params = await provider.waitForCallback();
      await transport.finishAuth(params);
    } catch (err) {
      this.authUrl = undefined;
      // The authorization server's `error` parameter (and its messages) are its own text: shown cleaned.
      this.setState('failed', `authorization failed: ${visibleLine(String((err as Error)?.message ?? err).split('\n')[0]!)}`);
      throw err;
    } finally {
      provider.close();
      if (this.pendingAuth === provider) this.pendingAuth = undefined;
      this.consent = undefined;
    }
    this.authUrl = undefined;
    await this.ensureConnected();
  }

  /** While a consent is pending: resolves once it is given and the server connected (rejects on failure). */
  whenAuthorized(): Promise<void> | undefined {
    return this.consent;
  }

  private onClosed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.closing) return;
    // The server died: reconnect with backoff (a call that comes meanwhile connects at once).
    this.reconnects++;
    const tail = this.stderrTail.at(-1);
    if (this.reconnects > MAX_RECONNECTS) {
      this.setState('failed', `the server exited ${MAX_RECONNECTS} times${tail ? ` (stderr: ${tail})` : ''}`);
      return;
    }
    this.setState('idle', `the server exited${tail ? ` (stderr: ${tail})` : ''}; reconnecting`);
    const timers = this.deps.timers ?? { setTimeout, clearTimeout };
    this.reconnectTimer = timers.setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closing && this.state !== 'connected') this.ensureConnected().catch(() => {});
    }, reconnectDelayMs(this.reconnects));
    (this.reconnectTimer as { unref?: () => void }).unref?.();
  }

  /** Calls one tool; the abort signal and `timeoutMs` cancel it (notifications/cancelled), as an error result. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; onProgress?: (text: string) => void },
  ): Promise<ToolOutput> {
    await this.ensureConnected().catch((err: Error) => {
      throw new ToolError(`MCP server "${this.name}" is not available: ${err.message}`);
    });
    const client = this.client!;
    const timeoutMs = this.config.timeoutMs;
    try {
      const result = await client.callTool(
        { name: tool, arguments: args },
        {
          signal: opts.signal,
          timeout: timeoutMs,
          maxTotalTimeout: timeoutMs,
          ...(opts.onProgress
            ? {
                onprogress: (p: { progress: number; total?: number; message?: string }) =>
                  opts.onProgress!(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? `: ${visibleLine(String(p.message)).slice(0, 500)}` : ''}\n`),
              }
            : {}),
        },
      );
      return mapToolResult(result as Parameters<typeof mapToolResult>[0], { server: this.name, tool });
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (opts.signal.aborted) throw new ToolError(`The call to ${tool} on MCP server "${this.name}" was cancelled: the run was stopped.`);
      const sdk = await loadSdk();
      if (err instanceof sdk.SdkError && err.code === sdk.SdkErrorCode.RequestTimeout) {
        throw new ToolError(`${tool} on MCP server "${this.name}" did not answer within ${timeoutMs / 1000} s; the call was cancelled.`);
      }
      throw new ToolError(`${tool} on MCP server "${this.name}" failed: ${visibleLine(String((err as Error)?.message ?? err).split('\n')[0]!)}`);
    }
  }

  /** Stops the server (and, for stdio, everything it started). */
  async close(): Promise<void> {
    this.closing = true;
    this.pendingAuth?.close();
    if (this.reconnectTimer) (this.deps.timers ?? { clearTimeout }).clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
    if (this.state !== 'failed') this.setState('idle');
  }
}

function toDef(t: SdkTool): McpToolDef {
  const a = t.annotations;
  return {
    name: t.name,
    ...(t.title ?? a?.title ? { title: t.title ?? a?.title } : {}),
    description: t.description ?? '',
    inputSchema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
    ...(a
      ? {
          annotations: {
            ...(a.readOnlyHint !== undefined ? { readOnlyHint: a.readOnlyHint } : {}),
            ...(a.destructiveHint !== undefined ? { destructiveHint: a.destructiveHint } : {}),
            ...(a.idempotentHint !== undefined ? { idempotentHint: a.idempotentHint } : {}),
            ...(a.openWorldHint !== undefined ? { openWorldHint: a.openWorldHint } : {}),
          },
        }
      : {}),
  };
}
