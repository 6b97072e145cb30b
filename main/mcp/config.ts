/**
 * X1: one MCP server entry of `"mcpServers"` — exactly the shape of Claude Desktop's `claude_desktop_config.json`
 * and Cursor's `mcp.json` (stdio `{command, args, env, cwd}`, remote `{url, headers}`, `type` optional), plus our
 * own fields. Cline's `disabled` / `alwaysAllow` are accepted too, so a pasted Cline entry works as it is.
 *
 * Secrets: `secretEnv` / `secretHeaders` name values kept in the OS keychain (set from Settings or
 * `agentdesk mcp add --secret-env NAME`), never written to a file. `${env:NAME}` / `${NAME}` in an `env`, `headers`
 * or `args` value is taken from AgentDesk's own environment, for that server only.
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';

export const MCP_APPROVAL_MODES = ['ask', 'auto', 'deny'] as const;
export type McpApprovalMode = (typeof MCP_APPROVAL_MODES)[number];

/** `type` spellings seen in the wild: Claude Code / Cursor `stdio` `http` `sse`, VS Code / Cline `streamable-http`, `streamableHttp`. */
export const MCP_TYPES = ['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'] as const;

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** Server names: what `mcp__<server>__<tool>` and the keychain accounts are built from. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const nonEmpty = lazy(() => z.string().min(1));

export const mcpServerConfigSchema = lazy(() => z.strictObject({
  type: z.enum(MCP_TYPES).optional(),
  command: nonEmpty.optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: nonEmpty.optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  /** Names of env variables / headers whose values live in the OS keychain. */
  secretEnv: z.array(nonEmpty).default([]),
  secretHeaders: z.array(nonEmpty).default([]),
  enabled: z.boolean().optional(),
  /** Cline's and Claude Code's spelling of `enabled: false`. */
  disabled: z.boolean().optional(),
  /** Which of the server's tools are offered (MCP tool names; deny wins). */
  tools: z.strictObject({ allow: z.array(nonEmpty).optional(), deny: z.array(nonEmpty).default([]) }).prefault({}),
  /** A call that runs longer is cancelled (notifications/cancelled) and the model gets an error result. */
  timeoutMs: z.number().int().positive().max(3_600_000).default(DEFAULT_MCP_TIMEOUT_MS),
  /** How its tool calls are approved: ask (default), auto (always allow the server), deny. */
  approval: z.enum(MCP_APPROVAL_MODES).default('ask'),
  /** Tools that always run without asking (Cline's name for it). */
  alwaysAllow: z.array(nonEmpty).default([]),
}));

export type McpServerConfig = z.output<typeof mcpServerConfigSchema>;
export type McpServerInput = z.input<typeof mcpServerConfigSchema>;
export type McpTransportKind = 'stdio' | 'http' | 'sse';

export const mcpServersSchema = lazy(() => z.record(z.string(), mcpServerConfigSchema).default({}));

export function transportOf(s: Pick<McpServerConfig, 'type' | 'command' | 'url'>): McpTransportKind {
  if (s.type === 'sse') return 'sse';
  if (s.type === 'stdio') return 'stdio';
  if (s.type) return 'http';
  return s.url && !s.command ? 'http' : 'stdio';
}

export const isEnabled = (s: Pick<McpServerConfig, 'enabled' | 'disabled'>): boolean => s.enabled ?? !s.disabled;

/** Cross-field problems of one entry (schema.ts's load step reports them in one line), or undefined. */
export function mcpServerProblem(name: string, s: McpServerConfig): string | undefined {
  if (!MCP_SERVER_NAME.test(name)) return 'server names may use only letters, digits, ".", "_" and "-" (at most 64)';
  const kind = transportOf(s);
  if (kind === 'stdio' && !s.command) return s.url ? `"type": "${s.type}" needs "command", not "url"` : 'missing "command" (a stdio server) or "url" (a remote server)';
  if (kind !== 'stdio' && !s.url) return `missing "url" (a ${kind === 'sse' ? 'SSE' : 'Streamable HTTP'} server)`;
  if (s.command && s.url) return 'has both "command" and "url": give one';
  return undefined;
}

/** A tool of `server` is offered to the model (the allow/deny lists). */
export function toolEnabled(s: Pick<McpServerConfig, 'tools'>, tool: string): boolean {
  if (s.tools.deny.includes(tool)) return false;
  return s.tools.allow === undefined || s.tools.allow.includes(tool);
}

const ENV_REF = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${env:NAME}` / `${NAME}` → the value in `env` (empty when unset), as Cursor and Claude Code expand them. */
export function expandEnvRefs(value: string, env: Readonly<Record<string, string | undefined>>): string {
  return value.replace(ENV_REF, (_m, name: string) => env[name] ?? '');
}

/** Names referenced with `${…}` in a server's values (those variables reach that server, by the person's choice). */
export function referencedEnvNames(s: Pick<McpServerConfig, 'env' | 'headers' | 'args'>): string[] {
  const names = new Set<string>();
  for (const v of [...Object.values(s.env), ...Object.values(s.headers), ...s.args]) for (const m of v.matchAll(ENV_REF)) names.add(m[1]!);
  return [...names];
}
