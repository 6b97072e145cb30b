/**
 * Flags of `agentdesk mcp list | add | remove | test NAME` (X1). `add` takes a stdio server after `--`
 * (`agentdesk mcp add gh -- npx -y @modelcontextprotocol/server-github`), a remote one by `--url`, a pasted entry by
 * `--json '{…}'`, or every server of a `claude_desktop_config.json` / `mcp.json` by `--from FILE`.
 */
import { parseArgs } from 'node:util';
import { MCP_APPROVAL_MODES, MCP_SERVER_NAME, MCP_TYPES, type McpServerInput } from '../mcp/config.js';
import { UsageError } from './usage-error.js';

export interface McpArgs {
  action: 'list' | 'add' | 'remove' | 'test';
  name?: string;
  home?: string;
  json?: boolean;
  entry?: McpServerInput;
  from?: string;
  secretEnv?: string[];
  secretHeaders?: string[];
}

const ACTIONS = ['list', 'add', 'remove', 'test'] as const;

function pairs(list: readonly string[] | undefined, sep: RegExp, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const m = sep.exec(item);
    if (!m || m.index === 0) throw new UsageError(`${flag} expects NAME${flag === '--header' ? ': VALUE' : '=VALUE'}, got "${item}"`);
    out[item.slice(0, m.index).trim()] = item.slice(m.index + m[0].length);
  }
  return out;
}

export function parseMcpArgs(argv: string[]): McpArgs {
  const [first, ...rest] = argv;
  if (!ACTIONS.includes(first as (typeof ACTIONS)[number])) {
    throw new UsageError(first ? `unknown mcp command "${first}" (use list, add, remove or test)` : 'mcp needs a command: list, add, remove or test');
  }
  const action = first as McpArgs['action'];
  const dash = rest.indexOf('--');
  const flags = dash >= 0 ? rest.slice(0, dash) : rest;
  const command = dash >= 0 ? rest.slice(dash + 1) : [];
  let parsed;
  try {
    parsed = parseArgs({
      args: flags,
      allowPositionals: true,
      strict: true,
      options: {
        home: { type: 'string' },
        json: { type: action === 'add' ? 'string' : 'boolean' },
        url: { type: 'string' },
        type: { type: 'string' },
        env: { type: 'string', multiple: true },
        header: { type: 'string', multiple: true },
        'secret-env': { type: 'string', multiple: true },
        'secret-header': { type: 'string', multiple: true },
        approval: { type: 'string' },
        'timeout-ms': { type: 'string' },
        cwd: { type: 'string' },
        from: { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!.replace(/^TypeError \[\w+\]: /, ''));
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const [name, ...extra] = parsed.positionals;
  const home = v.home as string | undefined;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (action !== 'add' && (command.length > 0 || v.url || v.env || v.header || v.from)) {
    throw new UsageError(`mcp ${action} takes only ${action === 'list' ? '--home and --json' : 'NAME and --home'}`);
  }
  if (action === 'list') {
    if (name) throw new UsageError('mcp list takes no NAME');
    return { action, home, json: v.json === true };
  }
  if (name !== undefined && !MCP_SERVER_NAME.test(name)) throw new UsageError(`bad server name "${name}": use letters, digits, ".", "_" and "-"`);
  if (action === 'remove' || action === 'test') {
    if (!name) throw new UsageError(`mcp ${action} needs a server NAME (see agentdesk mcp list)`);
    return { action, name, home };
  }
  // add
  if (v.from) return { action, home, from: v.from as string, ...(name ? { name } : {}) };
  if (!name) throw new UsageError('mcp add needs a server NAME, then -- COMMAND [ARGS…], --url URL or --json ENTRY (or --from FILE)');
  const given = [command.length > 0, !!v.url, typeof v.json === 'string'].filter(Boolean).length;
  if (given !== 1) throw new UsageError('mcp add needs exactly one of: -- COMMAND [ARGS…], --url URL, --json ENTRY');
  let entry: Record<string, unknown>;
  if (typeof v.json === 'string') {
    try {
      entry = JSON.parse(v.json) as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`--json is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new UsageError('--json must be one server entry object');
  } else if (v.url) {
    entry = { url: v.url };
  } else {
    entry = { command: command[0], args: command.slice(1) };
  }
  if (v.type) {
    if (!MCP_TYPES.includes(v.type as (typeof MCP_TYPES)[number])) throw new UsageError(`--type must be one of ${MCP_TYPES.join(', ')}`);
    entry.type = v.type;
  }
  if (v.env) entry.env = { ...(entry.env as object), ...pairs(v.env as string[], /=/, '--env') };
  if (v.header) entry.headers = { ...(entry.headers as object), ...pairs(v.header as string[], /:\s*/, '--header') };
  if (v.cwd) entry.cwd = v.cwd;
  if (v.approval) {
    if (!MCP_APPROVAL_MODES.includes(v.approval as 'ask')) throw new UsageError('--approval must be ask, auto or deny');
    entry.approval = v.approval;
  }
  if (v['timeout-ms']) {
    const n = Number(v['timeout-ms']);
    if (!Number.isInteger(n) || n <= 0 || n > 3_600_000) throw new UsageError('--timeout-ms must be a whole number of milliseconds, at most 3600000');
    entry.timeoutMs = n;
  }
  const secretEnv = (v['secret-env'] as string[] | undefined) ?? [];
  const secretHeaders = (v['secret-header'] as string[] | undefined) ?? [];
  if (secretEnv.length) entry.secretEnv = [...new Set([...((entry.secretEnv as string[]) ?? []), ...secretEnv])];
  if (secretHeaders.length) entry.secretHeaders = [...new Set([...((entry.secretHeaders as string[]) ?? []), ...secretHeaders])];
  return { action, name, home, entry: entry as McpServerInput, secretEnv, secretHeaders };
}
