/**
 * `agentdesk mcp list | add | remove | test NAME` (X1). Servers added here go to settings.json (the same list the
 * app's Settings edit; config.json stays hand-written), their secrets to the OS keychain (read from stdin, one value
 * per line, in the order of the --secret-env / --secret-header flags). `test` connects, lists the tools and exits 0
 * or 1 with one line; `list` never starts a server.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadConfig } from '../engine/config/load.js';
import { openKeychain, type SecretStore } from '../auth/secrets.js';
import { configuredSecrets } from '../gateway/secrets-scrub.js';
import { isEnabled, mcpServerConfigSchema, mcpServerProblem, transportOf, type McpServerConfig, type McpServerInput } from '../mcp/config.js';
import { importServers } from '../mcp/import.js';
import { McpManager } from '../mcp/manager.js';
import { McpOAuthProvider } from '../mcp/oauth.js';
import { forgetServerSecrets, keychainSecretSource, MCP_KEYCHAIN_SERVICE, secretAccount } from '../mcp/secrets.js';
import { openSettings } from '../settings/store.js';
import { applySettings } from '../settings/effective.js';
import type { Io } from './agent-command.js';
import type { McpArgs } from './mcp-args.js';
import { homeFrom } from './home.js';
import { prepareHome } from './home-check.js';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from './usage-error.js';
import pkg from '../../package.json';

const openMcpKeychain = (): Promise<SecretStore> => openKeychain({ service: MCP_KEYCHAIN_SERVICE });

export async function runMcpCommand(
  args: McpArgs,
  io: Io & { readStdin: () => Promise<string> },
  openSecrets: () => Promise<SecretStore> = openMcpKeychain,
): Promise<number> {
  const { home: homeArg, label } = homeFrom(args.home, io.env);
  const home = await prepareHome(resolve(io.cwd, homeArg), label);
  const fileConfig = await loadConfig(home).catch((err: Error) => {
    throw new UsageError(err.message);
  });
  const settings = openSettings(home);
  const config = applySettings(fileConfig, settings.get());

  if (args.action === 'list') {
    const manager = new McpManager({ home, servers: () => config.mcpServers, env: io.env, scrub: async () => ({}), clientVersion: pkg.version });
    const rows = manager.list().map(({ name, config: c, cachedTools }) => ({
      name,
      transport: transportOf(c),
      source: Object.hasOwn(settings.get().mcpServers, name) ? 'settings.json' : 'config.json',
      enabled: isEnabled(c),
      approval: c.approval,
      tools: cachedTools?.map((t) => t.name) ?? null,
      target: c.url ?? [c.command, ...c.args].join(' '),
    }));
    if (args.json) io.out(`${JSON.stringify(rows)}\n`);
    else if (rows.length === 0) io.out('No MCP servers. Add one: agentdesk mcp add NAME -- COMMAND [ARGS…]  or  agentdesk mcp add NAME --url URL\n');
    else {
      for (const r of rows) {
        const tools = r.tools ? `${r.tools.length} tools` : 'tools not listed yet (agentdesk mcp test NAME)';
        io.out(`${r.name}  ${r.transport}  ${r.enabled ? 'enabled' : 'disabled'}  approval: ${r.approval}  ${tools}  (${r.source})\n    ${r.target}\n`);
      }
    }
    return EXIT_OK;
  }

  if (args.action === 'add') {
    const entries: Record<string, McpServerInput> = {};
    if (args.from) {
      const text = await readFile(resolve(io.cwd, args.from), 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${args.from}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      });
      let imported;
      try {
        imported = importServers(text);
      } catch (err) {
        throw new UsageError(`${args.from}: ${(err as Error).message}`);
      }
      for (const note of imported.notes) io.err(`agentdesk: ${note}\n`);
      for (const [name, entry] of Object.entries(imported.servers)) if (!args.name || args.name === name) entries[name] = entry;
      if (args.name && !entries[args.name]) throw new UsageError(`${args.from} has no usable server named "${args.name}"`);
    } else {
      entries[args.name!] = args.entry!;
    }
    const parsed: Record<string, McpServerConfig> = {};
    for (const [name, entry] of Object.entries(entries)) {
      const result = mcpServerConfigSchema.safeParse(entry);
      if (!result.success) throw new UsageError(`${name}: ${result.error.issues[0]?.message ?? 'invalid entry'}`);
      const problem = mcpServerProblem(name, result.data);
      if (problem) throw new UsageError(`${name}: ${problem}`);
      if (Object.hasOwn(config.mcpServers, name)) throw new UsageError(`an MCP server named "${name}" already exists (agentdesk mcp remove ${name} first)`);
      parsed[name] = result.data;
    }
    // Secrets: one line of stdin per --secret-env / --secret-header, in order; straight to the keychain.
    const secretNames = [...(args.secretEnv ?? []).map((n) => ['env', n] as const), ...(args.secretHeaders ?? []).map((n) => ['header', n] as const)];
    if (secretNames.length > 0) {
      const lines = (await io.readStdin()).split(/\r?\n/).filter((l) => l.trim() !== '');
      if (lines.length < secretNames.length) throw new UsageError(`expected ${secretNames.length} secret value(s) on stdin, one per line, got ${lines.length}`);
      const store = await openSecrets();
      const name = args.name!;
      for (const [i, [kind, n]] of secretNames.entries()) await store.set(secretAccount(name, kind, n), lines[i]!.trim());
    }
    settings.update((s) => ({ ...s, mcpServers: { ...s.mcpServers, ...parsed } }));
    for (const name of Object.keys(parsed)) {
      const c = parsed[name]!;
      io.out(`Added MCP server "${name}" (${transportOf(c)}, approval: ${c.approval}). Check it with: agentdesk mcp test ${name}\n`);
    }
    return EXIT_OK;
  }

  if (args.action === 'remove') {
    const name = args.name!;
    if (!Object.hasOwn(config.mcpServers, name)) throw new UsageError(`no MCP server named "${name}" (see agentdesk mcp list)`);
    if (!Object.hasOwn(settings.get().mcpServers, name)) throw new UsageError(`"${name}" is defined in config.json; remove it there`);
    settings.update((s) => {
      const { [name]: _, ...rest } = s.mcpServers;
      return { ...s, mcpServers: rest };
    });
    const removed = config.mcpServers[name]!;
    if (removed.secretEnv.length + removed.secretHeaders.length > 0) await openSecrets().then((s) => forgetServerSecrets(s, name)).catch(() => {});
    await new McpManager({ home, servers: () => ({}), env: io.env, scrub: async () => ({}), clientVersion: pkg.version }).forgetCache(name);
    io.out(`Removed MCP server "${name}".\n`);
    return EXIT_OK;
  }

  // test NAME: connect, list the tools, one line, exit 0 / 1.
  const name = args.name!;
  if (!Object.hasOwn(config.mcpServers, name)) throw new UsageError(`no MCP server named "${name}" (see agentdesk mcp list)`);
  const manager = new McpManager({
    home,
    servers: () => config.mcpServers,
    env: io.env,
    scrub: () => configuredSecrets(config, io.env, undefined),
    secrets: keychainSecretSource(openSecrets),
    authProvider: (server) => new McpOAuthProvider(server, openSecrets),
    clientVersion: pkg.version,
  });
  try {
    let conn = await manager.connect(name).catch(async (err: Error) => {
      // OAuth: print where to consent, and wait for it (the browser comes back to this process).
      const pending = manager.connection(name)?.whenAuthorized();
      if (!pending) throw err;
      io.err(`agentdesk: MCP server "${name}" needs authorization: open ${manager.connection(name)!.authUrl} (waiting up to 5 minutes)\n`);
      await pending;
      return manager.connection(name)!;
    });
    conn = conn!;
    const tools = conn.tools ?? [];
    const version = conn.serverVersion ? `, server ${conn.serverVersion}` : '';
    const leftOut = conn.toolsLeftOut > 0 ? ` (${conn.toolsLeftOut} left out: control or invisible characters in their names)` : '';
    io.out(`${name}: connected (${transportOf(conn.config)}${version}) — ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}${leftOut}\n`);
    return EXIT_OK;
  } catch (err) {
    io.err(`agentdesk: MCP server "${name}" failed: ${(err as Error).message}\n`);
    return EXIT_RUN_FAILED;
  } finally {
    await manager.close();
  }
}
