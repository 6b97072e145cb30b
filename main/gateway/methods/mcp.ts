/**
 * X1 Settings › MCP: `mcp.status` (every server, live: state, error and stderr tail, tools with their switches,
 * token cost), `mcp.save` (add or edit; secret values straight to the keychain), `mcp.remove`, `mcp.setEnabled`,
 * `mcp.setTool` (a tool on/off, always allow), `mcp.connect` (start it now), `mcp.import` (a pasted or opened
 * `claude_desktop_config.json` / `mcp.json`). Servers live in settings.json; editing one defined in config.json saves
 * a copy there (which then wins). A change applies to the next run.
 */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { McpServerDto, McpStatusDto, Methods } from '../../../preload/contract.js';
import type { SecretStore } from '../../auth/secrets.js';
import { isEnabled, MCP_APPROVAL_MODES, MCP_SERVER_NAME, mcpServerConfigSchema, mcpServerProblem, toolEnabled, transportOf, type McpServerConfig } from '../../mcp/config.js';
import { importServers } from '../../mcp/import.js';
import type { McpManager } from '../../mcp/manager.js';
import { forgetServerSecrets, secretAccount } from '../../mcp/secrets.js';
import { planToolBudget, toolTokens } from '../../mcp/budget.js';
import { normalizeInputSchema } from '../../mcp/schema.js';
import { mcpToolName } from '../../mcp/names.js';
import type { SettingsStore } from '../../settings/store.js';
import { validatedMethods } from '../params.js';
import { GatewayError } from '../types.js';

const name = lazy(() => z.string().regex(MCP_SERVER_NAME, 'server names may use only letters, digits, ".", "_" and "-" (at most 64)'));
const stringMap = lazy(() => z.record(z.string().min(1).max(200), z.string().max(10_000)));
const schemas = lazy(() => ({
  'mcp.status': z.object({}).strict(),
  'mcp.save': z
    .object({
      name,
      /** Renaming: the old name (its entry and secrets move). */
      previousName: name.optional(),
      server: z
        .object({
          type: z.enum(['stdio', 'http', 'sse']).optional(),
          command: z.string().min(1).max(4096).optional(),
          args: z.array(z.string().max(4096)).max(200).optional(),
          cwd: z.string().min(1).max(4096).optional(),
          url: z.string().max(4096).optional(),
          env: stringMap.optional(),
          headers: stringMap.optional(),
          secretEnv: stringMap.optional(),
          secretHeaders: stringMap.optional(),
          approval: z.enum(MCP_APPROVAL_MODES).optional(),
          timeoutMs: z.number().int().positive().max(3_600_000).optional(),
        })
        .strict(),
    })
    .strict(),
  'mcp.remove': z.object({ name }).strict(),
  'mcp.setEnabled': z.object({ name, enabled: z.boolean() }).strict(),
  'mcp.setTool': z.object({ name, tool: z.string().min(1).max(256), enabled: z.boolean().optional(), alwaysAllow: z.boolean().optional() }).strict(),
  'mcp.setApproval': z.object({ name, approval: z.enum(MCP_APPROVAL_MODES) }).strict(),
  'mcp.connect': z.object({ name }).strict(),
  'mcp.import': z.object({ text: z.string().min(1).max(1_000_000) }).strict(),
}));

type McpMethod = keyof typeof schemas;

export interface McpMethodDeps {
  settings: SettingsStore;
  /** The live merged servers (config.json overlaid with Settings). */
  servers: () => Record<string, McpServerConfig>;
  /** Recomputes the live config after a settings change. */
  reconfigure: () => void;
  mcp: McpManager;
  openSecrets: () => Promise<SecretStore>;
  /** The default model's context window (for the budget warning). */
  windowTokens: () => number;
}

export function createMcpMethods(deps: McpMethodDeps) {
  const fromSettings = (n: string): boolean => Object.hasOwn(deps.settings.get().mcpServers, n);

  const status = (): McpStatusDto => {
    const perServer = new Map<string, number>();
    const servers: McpServerDto[] = deps.mcp.list().map(({ name: n, config: c, conn, cachedTools }) => {
      const defs = conn.state === 'connected' && conn.tools ? conn.tools : (cachedTools ?? conn.tools);
      const tools = defs?.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        description: t.description,
        enabled: toolEnabled(c, t.name),
        alwaysAllow: c.alwaysAllow.includes(t.name),
        ...(t.annotations ? { annotations: t.annotations } : {}),
      }));
      const specs = (defs ?? [])
        .filter((t) => toolEnabled(c, t.name))
        .map((t) => ({ name: mcpToolName(n, t.name), description: t.description, parameters: normalizeInputSchema(t.inputSchema) }));
      const tokens = toolTokens(specs);
      if (isEnabled(c)) perServer.set(n, tokens);
      return {
        name: n,
        transport: transportOf(c),
        source: fromSettings(n) ? 'settings' : 'config',
        enabled: isEnabled(c),
        state: isEnabled(c) ? conn.state : 'disabled',
        ...(conn.error ? { error: conn.error } : {}),
        stderr: [...conn.stderrTail],
        ...(tools ? { tools } : {}),
        toolTokens: tokens,
        approval: c.approval,
        timeoutMs: c.timeoutMs,
        ...(c.command ? { command: c.command } : {}),
        args: c.args,
        ...(c.cwd ? { cwd: c.cwd } : {}),
        ...(c.url ? { url: c.url } : {}),
        env: c.env,
        headers: c.headers,
        secretEnv: c.secretEnv,
        secretHeaders: c.secretHeaders,
        ...(conn.authUrl ? { authUrl: conn.authUrl } : {}),
      };
    });
    const plan = planToolBudget(perServer, 0, deps.windowTokens());
    return { servers, ...(plan.warning ? { budgetWarning: plan.warning } : {}) };
  };

  /** Writes `next` for `n` to settings.json (a config.json server becomes a Settings copy) and applies it. */
  const write = (n: string, change: (current: McpServerConfig) => McpServerConfig | undefined): void => {
    const current = deps.servers()[n];
    if (!current) throw new GatewayError('bad_request', `No MCP server named "${n}".`);
    const next = change(structuredClone(current));
    deps.settings.update((s) => {
      const servers = { ...s.mcpServers };
      if (next) servers[n] = next;
      else delete servers[n];
      return { ...s, mcpServers: servers };
    });
    deps.reconfigure();
  };

  const handlers: { [M in McpMethod]: (p: z.infer<(typeof schemas)[M]>) => Promise<Methods[M][1]> } = {
    async 'mcp.status'() {
      return status();
    },
    async 'mcp.save'({ name: n, previousName, server }) {
      const existing = deps.servers()[previousName ?? n];
      if (previousName === undefined && existing) throw new GatewayError('bad_request', `An MCP server named "${n}" already exists.`);
      if (previousName !== undefined && previousName !== n && deps.servers()[n]) throw new GatewayError('bad_request', `An MCP server named "${n}" already exists.`);
      const secretEnv = server.secretEnv ?? {};
      const secretHeaders = server.secretHeaders ?? {};
      // Secrets: the ones kept so far and the new ones, less any that became a plain value.
      const secretNames = (had: readonly string[] | undefined, given: Record<string, string>, plain: Record<string, string> | undefined) =>
        [...new Set([...(had ?? []), ...Object.keys(given)])].filter((x) => plain?.[x] === undefined);
      const entry = {
        ...(existing ? { enabled: existing.enabled, disabled: existing.disabled, tools: existing.tools, alwaysAllow: existing.alwaysAllow } : {}),
        ...(server.type && server.type !== 'stdio' ? { type: server.type } : {}),
        ...(server.command ? { command: server.command, args: server.args ?? [] } : {}),
        ...(server.cwd ? { cwd: server.cwd } : {}),
        ...(server.url ? { url: server.url } : {}),
        env: server.env ?? {},
        headers: server.headers ?? {},
        secretEnv: secretNames(existing?.secretEnv, secretEnv, server.env),
        secretHeaders: secretNames(existing?.secretHeaders, secretHeaders, server.headers),
        approval: server.approval ?? existing?.approval ?? 'ask',
        timeoutMs: server.timeoutMs ?? existing?.timeoutMs ?? 60_000,
      };
      const parsed = mcpServerConfigSchema.safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new GatewayError('bad_request', `${issue?.path.join('.') || n}: ${issue?.message ?? 'invalid'}`);
      }
      const problem = mcpServerProblem(n, parsed.data);
      if (problem) throw new GatewayError('bad_request', `${n}: ${problem}`);
      if (Object.keys(secretEnv).length + Object.keys(secretHeaders).length > 0) {
        const store = await deps.openSecrets().catch((err: Error) => {
          throw new GatewayError('bad_request', `${err.message} — secrets cannot be stored; nothing was saved.`);
        });
        for (const [k, v] of Object.entries(secretEnv)) await store.set(secretAccount(n, 'env', k), v);
        for (const [k, v] of Object.entries(secretHeaders)) await store.set(secretAccount(n, 'header', k), v);
      }
      deps.settings.update((s) => {
        const servers = { ...s.mcpServers };
        if (previousName !== undefined && previousName !== n) delete servers[previousName];
        servers[n] = parsed.data;
        return { ...s, mcpServers: servers };
      });
      deps.reconfigure();
      return status();
    },
    async 'mcp.remove'({ name: n }) {
      const cfg = deps.servers()[n];
      if (!cfg) throw new GatewayError('bad_request', `No MCP server named "${n}".`);
      if (!fromSettings(n)) throw new GatewayError('bad_request', `"${n}" is defined in config.json: remove it there, or switch it off here.`);
      write(n, () => undefined);
      if (cfg.secretEnv.length + cfg.secretHeaders.length > 0) await deps.openSecrets().then((s) => forgetServerSecrets(s, n)).catch(() => {});
      await deps.mcp.forgetCache(n);
      return status();
    },
    async 'mcp.setEnabled'({ name: n, enabled }) {
      write(n, (c) => {
        const { disabled: _, ...rest } = c;
        return { ...rest, enabled } as McpServerConfig;
      });
      return status();
    },
    async 'mcp.setTool'({ name: n, tool, enabled, alwaysAllow }) {
      write(n, (c) => {
        if (enabled !== undefined) {
          const deny = new Set(c.tools.deny);
          if (enabled) deny.delete(tool);
          else deny.add(tool);
          const allow = c.tools.allow && enabled && !c.tools.allow.includes(tool) ? [...c.tools.allow, tool] : c.tools.allow;
          c.tools = { ...(allow ? { allow } : {}), deny: [...deny] };
        }
        if (alwaysAllow !== undefined) {
          const set = new Set(c.alwaysAllow);
          if (alwaysAllow) set.add(tool);
          else set.delete(tool);
          c.alwaysAllow = [...set];
        }
        return c;
      });
      return status();
    },
    async 'mcp.setApproval'({ name: n, approval }) {
      write(n, (c) => ({ ...c, approval }));
      return status();
    },
    async 'mcp.connect'({ name: n }) {
      if (!deps.servers()[n]) throw new GatewayError('bad_request', `No MCP server named "${n}".`);
      await deps.mcp.connect(n).catch(() => {}); // the status says why
      return status();
    },
    async 'mcp.import'({ text }) {
      let imported;
      try {
        imported = importServers(text);
      } catch (err) {
        throw new GatewayError('bad_request', `Could not import: ${(err as Error).message}`);
      }
      const added: string[] = [];
      const notes = [...imported.notes];
      const current = deps.servers();
      const next: Record<string, McpServerConfig> = {};
      for (const [n, entry] of Object.entries(imported.servers)) {
        if (current[n]) {
          notes.push(`${n}: a server of that name exists already (skipped)`);
          continue;
        }
        next[n] = mcpServerConfigSchema.parse(entry);
        added.push(n);
      }
      if (added.length > 0) {
        deps.settings.update((s) => ({ ...s, mcpServers: { ...s.mcpServers, ...next } }));
        deps.reconfigure();
      }
      return { added, notes, status: status() };
    },
  };
  return validatedMethods<typeof schemas, { [M in McpMethod]: Methods[M][1] }>(schemas, handlers);
}
