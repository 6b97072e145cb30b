/**
 * `agentdesk mcp list | add | remove | test NAME` (X1) through the built CLI, with the real reference server and the
 * real OS keychain (the D-Bus session `npm test` starts): servers go to settings.json, a secret env value goes to the
 * keychain only and reaches that server, `test` exits 0/1 with one line, a config.json server cannot be removed
 * here, and a claude_desktop_config.json imports with `add --from`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKeychain } from '../../main/auth/secrets.js';
import { MCP_KEYCHAIN_SERVICE } from '../../main/mcp/secrets.js';
import { toolLoopScenario } from '../fake/index.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../support/cli.js';

const fakes = useCliFakes({ workspacePrefix: 'mcp-cli-ws' });
const SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const keychain = await openKeychain({ service: MCP_KEYCHAIN_SERVICE, verifyWrite: true }).then(
  (k) => k,
  () => undefined,
);

describe('agentdesk mcp', () => {
  it('add → list → test → remove, and bad usage is exit 2 with one line', async () => {
    const home = await tempDir('mcp-cli-home');
    const cli = (action: string, ...args: string[]) => runCli(['mcp', action, '--home', home, ...args], { env: cleanEnv(), timeoutMs: 30_000 });
    expect((await cli('list')).stdout).toContain('No MCP servers.');
    const add = await cli('add', 'everything', '--approval', 'auto', '--', process.execPath, SERVER, 'stdio');
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stdout).toBe('Added MCP server "everything" (stdio, approval: auto). Check it with: agentdesk mcp test everything');
    const settings = JSON.parse(await readFile(join(home, 'settings.json'), 'utf8'));
    expect(settings.mcpServers.everything).toMatchObject({ command: process.execPath, args: [SERVER, 'stdio'], approval: 'auto' });

    const before = await cli('list', '--json');
    expect(JSON.parse(before.stdout)).toEqual([expect.objectContaining({ name: 'everything', transport: 'stdio', enabled: true, tools: null, source: 'settings.json' })]);
    const test = await cli('test', 'everything');
    expect(test.exitCode, test.stderr).toBe(0);
    expect(test.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(test.stdout).toMatch(/^everything: connected \(stdio, server [\w.-]+\) — 1\d tools: echo, /);
    // The listing is remembered: list shows the tools without starting the server.
    const after = JSON.parse((await cli('list', '--json')).stdout) as { tools: string[] }[];
    expect(after[0]!.tools).toContain('get-env');

    expect((await cli('add', 'everything', '--', 'x')).stderr).toBe('agentdesk: an MCP server named "everything" already exists (agentdesk mcp remove everything first)');
    for (const bad of [['add'], ['add', 'x'], ['add', 'x', '--url', 'ftp://h/'], ['test'], ['nope'], ['add', 'bad name', '--', 'x'], ['add', 'x', '--approval', 'maybe', '--', 'y']]) {
      const r = await cli(bad[0]!, ...bad.slice(1));
      expect(r.exitCode, bad.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), bad.join(' ')).toHaveLength(1);
    }
    const rm = await cli('remove', 'everything');
    expect(rm.stdout).toBe('Removed MCP server "everything".');
    expect((await cli('test', 'everything')).exitCode).toBe(2);
  }, 60_000);

  it('test on a server that fails: exit 1, one line with the reason', async () => {
    const home = await homeWith({ mcpServers: { ghost: { command: 'agentdesk-no-such-server' } } }, 'mcp-cli-home');
    const r = await runCli(['mcp', 'test', 'ghost', '--home', home], { env: cleanEnv(), timeoutMs: 30_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('agentdesk: MCP server "ghost" failed: command not found: agentdesk-no-such-server');
    const rm = await runCli(['mcp', 'remove', 'ghost', '--home', home], { env: cleanEnv() });
    expect(rm.exitCode).toBe(2);
    expect(rm.stderr).toBe('agentdesk: "ghost" is defined in config.json; remove it there');
  }, 60_000);

  it('add --from a claude_desktop_config.json (Cline fields translated, unknown ones named)', async () => {
    const home = await tempDir('mcp-cli-home');
    const file = join(home, 'claude_desktop_config.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [SERVER], env: { A: 'b' }, autoApprove: ['echo'], timeout: 30 },
          docs: { url: 'https://example.com/mcp', headers: { 'X-Team': 'a' }, envFile: '.env' },
          broken: { args: ['x'] },
        },
      }),
    );
    const r = await runCli(['mcp', 'add', '--from', file, '--home', home], { env: cleanEnv() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('docs: field "envFile" is not used here and was left out');
    expect(r.stderr).toContain('broken: missing "command"');
    const s = JSON.parse(await readFile(join(home, 'settings.json'), 'utf8'));
    expect(Object.keys(s.mcpServers).sort()).toEqual(['docs', 'everything']);
    expect(s.mcpServers.everything).toMatchObject({ alwaysAllow: ['echo'], timeoutMs: 30_000, env: { A: 'b' } });
  }, 60_000);

  it.skipIf(!keychain)('a secret env value goes to the keychain only, and reaches that server (get-env)', async () => {
    const home = await homeWith(fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeant/claude-fake' } } } }), 'mcp-cli-home');
    const secret = `mcp-secret-${Date.now()}-value`;
    const add = await runCli(['mcp', 'add', 'everything', '--home', home, '--approval', 'auto', '--secret-env', 'EVERYTHING_API_TOKEN', '--', process.execPath, SERVER, 'stdio'], {
      env: cleanEnv(),
      input: `${secret}\n`,
    });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(await keychain!.get('everything:env:EVERYTHING_API_TOKEN')).toBe(secret);
    expect(await readFile(join(home, 'settings.json'), 'utf8')).not.toContain(secret);
    const scenario = toolLoopScenario({ toolName: 'mcp__everything__get-env', args: {}, finalText: 'ok' });
    fakes.anthropic.enqueue(scenario, scenario);
    const run = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--message', 'env?'], {
      env: cleanEnv({ FAKE_ANT_KEY: 'sk-ant-cli-mcp-0000' }),
      timeoutMs: 60_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.stringify(fakes.anthropic.requests.at(-1)?.body)).toContain(secret);
    const rm = await runCli(['mcp', 'remove', 'everything', '--home', home], { env: cleanEnv() });
    expect(rm.exitCode).toBe(0);
    expect(await keychain!.get('everything:env:EVERYTHING_API_TOKEN')).toBeNull();
  }, 60_000);
});
