/**
 * X1: the MCP servers of one gateway — one McpConnection per configured server, shared by every run, kept in step
 * with the live config (a changed entry is restarted, a removed one stopped). For each run it offers the enabled
 * servers' tools as `mcp__<server>__<tool>`: from a connected server, else from the tool cache (the server starts
 * at the first call), else by starting it now. A server that cannot start never fails a run: the run goes on
 * without its tools and the failure is said once (a notice, which the CLI prints as one stderr line; Settings shows
 * the status). The tool budget is applied to what is offered.
 */
import type { McpOAuthProvider } from './oauth.js';
import type { ScrubOptions } from '../tools/env.js';
import type { Tool } from '../tools/types.js';
import { isEnabled, referencedEnvNames, toolEnabled, type McpApprovalMode, type McpServerConfig } from './config.js';
import { McpConnection } from './connection.js';
import { expandedArgs, remoteHeaders, stdioServerEnv } from './env.js';
import { assignToolNames } from './names.js';
import { normalizeInputSchema } from './schema.js';
import { ToolCache } from './tool-cache.js';
import type { McpToolDef } from './types.js';
import { planToolBudget, toolTokens } from './budget.js';
import type { ToolAnnotations } from '../tools/types.js';

/** Descriptions longer than this are cut (they cost tokens on every request). */
const MAX_DESCRIPTION = 2000;

export interface McpSecretSource {
  /** The keychain-held values of a server's `secretEnv` / `secretHeaders` (missing ones are left out). */
  values(server: string, kind: 'env' | 'header', names: readonly string[]): Promise<Record<string, string>>;
}

export interface McpManagerOptions {
  home: string;
  /** The live `mcpServers` (config.json overlaid with Settings). */
  servers: () => Record<string, McpServerConfig>;
  env: NodeJS.ProcessEnv;
  /** What exec also keeps from children (configured key names and values). */
  scrub: () => Promise<ScrubOptions>;
  secrets?: McpSecretSource;
  /** OAuth for remote servers: a provider per connection attempt (tokens in the keychain). */
  authProvider?: (server: string, cfg: McpServerConfig) => McpOAuthProvider | undefined;
  clientVersion: string;
  now?: () => number;
}

export interface McpToolInfo {
  server: string;
  tool: string;
  annotations?: ToolAnnotations;
  /** How a call is approved: the server's `approval`, or `auto` for a tool in its `alwaysAllow`. */
  mode: McpApprovalMode;
}

export interface RunToolsResult {
  tools: Tool[];
  /** One line each: a server that could not start, a tool budget warning. */
  notices: string[];
}

const sameConfig = (a: McpServerConfig, b: McpServerConfig): boolean => JSON.stringify(a) === JSON.stringify(b);

export class McpManager {
  private readonly connections = new Map<string, McpConnection>();
  /** The config each connection was made from (to notice a change). */
  private readonly raw = new Map<string, McpServerConfig>();
  private readonly cache: ToolCache;
  private readonly listeners = new Set<(notice: { server?: string; message: string }) => void>();
  private readonly changeListeners = new Set<() => void>();
  /** Servers whose current failure has been reported (cleared when it connects). */
  private readonly reported = new Set<string>();
  /** What each offered name stands for (the approval gate and the UI ask by name). */
  private readonly byName = new Map<string, Omit<McpToolInfo, 'mode'>>();
  private closed = false;

  constructor(private readonly o: McpManagerOptions) {
    this.cache = new ToolCache(o.home);
  }

  /** Notices (a server that failed, a budget warning): the CLI prints them on stderr. */
  onNotice(listener: (notice: { server?: string; message: string }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Any status or tool-list change (the gateway pushes the new status to Settings). */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private notice(message: string, server?: string): void {
    for (const l of this.listeners) l({ ...(server ? { server } : {}), message });
  }

  /** The connection of `name`, created or restarted to match the live config (undefined: not configured). */
  connection(name: string): McpConnection | undefined {
    const servers = this.o.servers();
    const cfg = Object.hasOwn(servers, name) ? servers[name] : undefined;
    const existing = this.connections.get(name);
    if (!cfg) {
      if (existing) {
        this.connections.delete(name);
        void existing.close();
      }
      return undefined;
    }
    if (existing && sameConfig(this.raw.get(name)!, cfg)) return existing;
    if (existing) void existing.close();
    // `${env:NAME}` in args is expanded when the connection is made.
    const conn: McpConnection = new McpConnection(name, { ...cfg, args: expandedArgs(cfg.args, this.o.env) }, {
      clientVersion: this.o.clientVersion,
      stdioEnv: async () => stdioServerEnv(cfg, this.o.env, await this.scrub(), (await this.o.secrets?.values(name, 'env', cfg.secretEnv)) ?? {}),
      headers: async () => remoteHeaders(cfg, this.o.env, (await this.o.secrets?.values(name, 'header', cfg.secretHeaders)) ?? {}),
      ...(this.o.authProvider ? { authProvider: () => this.o.authProvider!(name, cfg) } : {}),
      onChange: () => this.changed(conn),
    });
    this.raw.set(name, cfg);
    this.connections.set(name, conn);
    return conn;
  }

  /** exec's scrub rules, plus every variable some server references with `${…}` (meant for that server only). */
  private async scrub(): Promise<ScrubOptions> {
    const base = await this.o.scrub();
    const referenced = Object.values(this.o.servers()).flatMap((c) => referencedEnvNames(c));
    return { ...base, names: [...(base.names ?? []), ...referenced] };
  }

  private changed(conn: McpConnection): void {
    if (conn.state === 'connected') {
      this.reported.delete(conn.name);
      const cfg = this.o.servers()[conn.name];
      if (cfg && conn.tools) void this.cache.set(conn.name, cfg, conn.tools, (this.o.now ?? Date.now)());
    }
    for (const l of this.changeListeners) l();
  }

  /** The tool list of `name` without starting it when a cached one exists (undefined: start it to know). */
  knownTools(name: string): McpToolDef[] | undefined {
    const conn = this.connection(name);
    if (!conn) return undefined;
    if (conn.state === 'connected' && conn.tools) return conn.tools;
    return this.cache.get(name, this.o.servers()[name]!) ?? conn.tools;
  }

  /**
   * The MCP tools for one run. `reserved`: the built-in tool names; `windowTokens`/`builtInTokens`: for the budget
   * (`builtInTokens` may be a function: called only when there are MCP tools to budget).
   */
  async toolsForRun(opts: { reserved: readonly string[]; windowTokens: number; builtInTokens: number | (() => number) }): Promise<RunToolsResult> {
    const notices: string[] = [];
    const servers = Object.entries(this.o.servers()).filter(([, cfg]) => isEnabled(cfg));
    // Stop connections of servers that were removed or disabled.
    for (const name of [...this.connections.keys()]) {
      const cfg = this.o.servers()[name];
      if (!cfg || !isEnabled(cfg)) {
        const conn = this.connections.get(name)!;
        this.connections.delete(name);
        void conn.close();
      }
    }
    const lists = await Promise.all(
      servers.map(async ([name]): Promise<[string, McpToolDef[]]> => {
        const known = this.knownTools(name);
        if (known) return [name, known];
        const conn = this.connection(name)!;
        try {
          await conn.ensureConnected();
          return [name, conn.tools ?? []];
        } catch {
          if (!this.reported.has(name)) {
            this.reported.add(name);
            const line = `MCP server "${name}" is not available: ${conn.error ?? 'failed to start'} — the run goes on without its tools`;
            notices.push(line);
            this.notice(line, name);
          }
          return [name, []];
        }
      }),
    );
    const pairs: { server: string; def: McpToolDef; cfg: McpServerConfig }[] = [];
    for (const [server, defs] of lists) {
      const cfg = this.o.servers()[server]!;
      for (const def of defs) if (toolEnabled(cfg, def.name)) pairs.push({ server, def, cfg });
    }
    const names = assignToolNames(pairs.map((p) => ({ server: p.server, tool: p.def.name })), opts.reserved);
    const tools = pairs.map((p, i) => this.adapt(names[i]!, p.server, p.def, p.cfg));
    // Budget: per server, what its tools cost; servers left out (largest first) when they would not fit.
    const perServer = new Map<string, number>();
    for (const [server] of lists) {
      const specs = tools.filter((t) => t.mcp?.server === server).map(({ name, description, parameters }) => ({ name, description, parameters }));
      perServer.set(server, toolTokens(specs));
    }
    if (perServer.size === 0) return { tools: [], notices }; // nothing to budget
    const builtInTokens = typeof opts.builtInTokens === 'function' ? opts.builtInTokens() : opts.builtInTokens;
    const plan = planToolBudget(perServer, builtInTokens, opts.windowTokens);
    if (plan.warning) {
      notices.push(plan.warning);
      this.notice(plan.warning);
    }
    return { tools: tools.filter((t) => plan.kept.includes(t.mcp!.server)), notices };
  }

  private adapt(name: string, server: string, def: McpToolDef, cfg: McpServerConfig): Tool {
    const desc = def.description.trim() || `${def.title ?? def.name} (MCP server "${server}")`;
    this.byName.set(name, { server, tool: def.name, ...(def.annotations ? { annotations: def.annotations } : {}) });
    return {
      name,
      description: desc.length > MAX_DESCRIPTION ? `${desc.slice(0, MAX_DESCRIPTION - 1)}…` : desc,
      parameters: normalizeInputSchema(def.inputSchema),
      mcp: { server, tool: def.name, ...(def.annotations ? { annotations: def.annotations } : {}) },
      // X2: checkpoint before it runs unless the server says it only reads (its own claim: a wrong one costs a snapshot).
      mutating: def.annotations?.readOnlyHint !== true,
      execute: (args, ctx) => {
        const conn = this.connection(server);
        if (!conn) return Promise.reject(new Error(`MCP server "${server}" is no longer configured.`));
        return conn.call(def.name, args, { signal: ctx.signal, ...(ctx.onUpdate ? { onProgress: ctx.onUpdate } : {}) });
      },
    };
  }

  /** What an offered tool name stands for (approvals, the approval card), with its approval mode as configured now. */
  toolInfo(name: string): McpToolInfo | undefined {
    const info = this.byName.get(name);
    if (!info) return undefined;
    const servers = this.o.servers();
    const cfg = Object.hasOwn(servers, info.server) ? servers[info.server] : undefined;
    // A server removed meanwhile: its tools ask (the call itself then says the server is gone).
    const mode: McpApprovalMode = !cfg ? 'ask' : cfg.approval === 'deny' ? 'deny' : cfg.alwaysAllow.includes(info.tool) ? 'auto' : cfg.approval;
    return { ...info, mode };
  }

  /** Connects `name` now (Settings' Connect / `agentdesk mcp test`); rejects with the one-line reason. */
  async connect(name: string): Promise<McpConnection> {
    const conn = this.connection(name);
    if (!conn) throw new Error(`No MCP server named "${name}".`);
    await conn.ensureConnected();
    return conn;
  }

  /** Every configured server with its connection (created idle where needed). */
  list(): { name: string; config: McpServerConfig; conn: McpConnection; cachedTools?: McpToolDef[] }[] {
    return Object.keys(this.o.servers()).map((name) => {
      const conn = this.connection(name)!;
      const cached = this.cache.get(name, this.o.servers()[name]!);
      return { name, config: this.o.servers()[name]!, conn, ...(cached ? { cachedTools: cached } : {}) };
    });
  }

  forgetCache(name: string): Promise<void> {
    return this.cache.delete(name);
  }

  /** Stops every server (the app, CLI or gateway is closing). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
    await this.cache.settled(); // a listing made just before closing is remembered
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
