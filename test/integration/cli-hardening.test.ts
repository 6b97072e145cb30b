/**
 * X5 through the real CLI, the real Anthropic SDK and the fake provider's scripted tool calls, with `--approve auto`:
 * - the model's exec, write, edit and apply_patch calls cannot create a git hook or set core.fsmonitor — and then
 *   `git status` and `git commit` on the host run nothing planted;
 * - `agent.sandbox: false` + auto refuses exec unless opted in (`--approve unsandboxed`), which prints one line;
 * - the data folder (`--home`) inside the workspace is unreadable to every tool: read, list, grep, find, write, and
 *   exec (hidden in the sandbox).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider, type FakeTurn } from '../fake/index.js';
import { cleanEnv, ensureBuilt, runCli, tempDir, writeConfig } from '../support/cli.js';
import { detectSandbox } from '../../main/tools/sandbox/index.js';

const gitRun = promisify(execFile);
const sandboxed = (await detectSandbox()).kind === 'bwrap';
const KEY = { HARD_KEY: 'sk-ant-hardening-test-0101' };
let fake: FakeProvider;
let markers = '';

type Event = { stream: string; data: Record<string, unknown> };

const config = (agent: Record<string, unknown> = {}) => ({
  providers: { ant: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096 }] } },
  authProfiles: [{ id: 'ant:test', provider: 'ant', apiKeyEnv: 'HARD_KEY' }],
  agent: { model: { primary: 'ant/claude-fake' }, ...agent },
});

beforeAll(async () => {
  await ensureBuilt();
  fake = await startFakeAnthropic();
  markers = await tempDir('hard-markers');
}, 120_000);
afterAll(async () => {
  await fake?.close();
});

async function run(home: string, ws: string, turns: FakeTurn[], approve: string, env: Record<string, string> = {}) {
  fake.enqueue(...turns);
  const r = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--message', 'do the task', '--approve', approve], { env: cleanEnv({ ...KEY, ...env }), timeoutMs: 60_000 });
  const result = r.lines.at(-1) as { status: string };
  const events = r.lines.slice(0, -1) as unknown as Event[];
  const toolEnds = events.filter((e) => e.stream === 'tool' && e.data.phase === 'end').map((e) => e.data as { name: string; isError: boolean; result: string });
  return { r, result, events, toolEnds };
}

const git = (cwd: string, ...args: string[]) =>
  gitRun('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

describe.runIf(sandboxed)('auto mode cannot plant anything host git runs', () => {
  it('exec, write, edit and apply_patch: no hook, no core.fsmonitor; git status and commit afterwards run nothing', async () => {
    const home = await tempDir('hard-home');
    await writeConfig(home, config());
    const ws = await tempDir('hard-ws');
    await git(ws, 'init', '-q');
    await writeFile(join(ws, 'a.txt'), 'a\n');
    await git(ws, 'add', '-A');
    await git(ws, 'commit', '-qm', 'first');
    const hook = `#!/bin/sh\ntouch ${markers}/hook-$(basename $0)\n`;
    const { toolEnds, result, r } = await run(home, ws, [
      { toolCalls: [{ name: 'exec', arguments: { command: `printf '${hook.replace(/\n/g, '\\n')}' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; git config core.fsmonitor "touch ${markers}/fsmonitor"; echo tried` } }] },
      { toolCalls: [{ name: 'write', arguments: { path: '.git/hooks/post-commit', content: hook } }] },
      { toolCalls: [{ name: 'edit', arguments: { path: '.git/config', edits: [{ oldText: '[core]', newText: `[core]\n\tfsmonitor = touch ${markers}/fsmonitor-edit` }] } }] },
      { toolCalls: [{ name: 'apply_patch', arguments: { patch: `--- /dev/null\n+++ b/.git/hooks/pre-push\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch ${markers}/pre-push\n` } }] },
      { text: 'All done.' },
    ], 'auto');
    expect(result.status, r.stderr).toBe('ok');
    expect(toolEnds.map((t) => [t.name, t.isError])).toEqual([['exec', false], ['write', true], ['edit', true], ['apply_patch', true]]);
    expect(toolEnds[0]!.result).toMatch(/pre-commit: Read-only file system/);
    expect(toolEnds[0]!.result).toMatch(/could not lock config file|Device or resource busy|Read-only file system/);
    for (const t of toolEnds.slice(1)) expect(t.result).toMatch(/protected path/);
    expect(r.stderr).toMatch(/agentdesk: not run, nobody was asked: write: \.git\/hooks\/post-commit: it changes a protected path/);
    // On the host: no hook, no fsmonitor — and using git runs nothing.
    expect((await readdir(join(ws, '.git', 'hooks'))).filter((f) => !f.endsWith('.sample'))).toEqual([]);
    expect(await readFile(join(ws, '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor/);
    await writeFile(join(ws, 'b.txt'), 'b\n');
    await git(ws, 'status');
    await git(ws, 'add', '-A');
    await git(ws, 'commit', '-qm', 'second');
    expect(await readdir(markers)).toEqual([]);
  }, 90_000);
});

describe('auto mode and commands without a sandbox', () => {
  it('agent.sandbox false + --approve auto: exec refused, with the reason on stderr and for the model', async () => {
    const home = await tempDir('hard-unsb-home');
    await writeConfig(home, config({ sandbox: false }));
    const ws = await tempDir('hard-unsb-ws');
    const { toolEnds, r } = await run(home, ws, [{ toolCalls: [{ name: 'exec', arguments: { command: 'touch ran.txt' } }] }, { text: 'ok' }], 'auto');
    expect(toolEnds[0]).toMatchObject({ name: 'exec', isError: true });
    expect(toolEnds[0]!.result).toMatch(/--approve auto does not cover that/);
    expect(r.stderr).toMatch(/^agentdesk: not run, nobody was asked: exec: \$ touch ran\.txt \(NOT sandboxed: full access to your files\): commands run without a sandbox here/m);
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
  }, 60_000);

  it.each([
    ['--approve unsandboxed', {}, 'unsandboxed'],
    ['agent.approvals.allowUnsandboxed', { approvals: { allowUnsandboxed: true } }, 'auto'],
  ])('opted in with %s: it runs, and one line says so', async (_l, agent, approve) => {
    const home = await tempDir('hard-opt-home');
    await writeConfig(home, config({ sandbox: false, ...agent }));
    const ws = await tempDir('hard-opt-ws');
    await mkdir(join(ws, 'sub'));
    const { toolEnds, r } = await run(home, ws, [{ toolCalls: [{ name: 'exec', arguments: { command: 'touch ran.txt' } }] }, { text: 'ok' }], approve);
    expect(toolEnds[0]).toMatchObject({ name: 'exec', isError: false });
    expect(existsSync(join(ws, 'ran.txt'))).toBe(true);
    expect(r.stderr.split('\n').filter((l) => l.includes('WITHOUT a sandbox'))).toEqual([
      'agentdesk: running WITHOUT a sandbox (allowed by --approve unsandboxed / allowUnsandboxed): exec: $ touch ran.txt (NOT sandboxed: full access to your files)',
    ]);
  }, 60_000);
});

describe.runIf(sandboxed)('the data folder inside the workspace', () => {
  it('no tool can read or change it: read, list, grep, find, write, exec', async () => {
    const ws = await tempDir('hard-datain-ws');
    const home = join(ws, '.config', 'AgentDesk');
    await mkdir(home, { recursive: true });
    await writeConfig(home, config());
    await writeFile(join(ws, 'readme.txt'), 'the project\n');
    const { toolEnds, result, r } = await run(home, ws, [
      { toolCalls: [{ name: 'read', arguments: { path: '.config/AgentDesk/config.json' } }] },
      { toolCalls: [{ name: 'list', arguments: { path: '.config/AgentDesk' } }] },
      { toolCalls: [{ name: 'grep', arguments: { pattern: 'HARD_KEY|claude-fake' } }] },
      { toolCalls: [{ name: 'find', arguments: { pattern: '**/*.json*' } }] },
      { toolCalls: [{ name: 'write', arguments: { path: '.config/AgentDesk/config.json', content: '{"agent":{"sandbox":false}}' } }] },
      { toolCalls: [{ name: 'exec', arguments: { command: 'cat .config/AgentDesk/config.json; ls -A .config/AgentDesk | wc -l; echo tampered > .config/AgentDesk/config.json' } }] },
      { text: 'Could not.' },
    ], 'auto');
    expect(result.status, r.stderr).toBe('ok');
    expect(toolEnds.map((t) => [t.name, t.isError])).toEqual([
      ['read', true], ['list', true], ['grep', false], ['find', false], ['write', true], ['exec', false],
    ]);
    for (const i of [0, 1, 4]) expect(toolEnds[i]!.result).toMatch(/outside the workspace: it is in AgentDesk's data folder/);
    expect(toolEnds[2]!.result).toMatch(/^No matches for \/HARD_KEY\|claude-fake\//);
    expect(toolEnds[3]!.result).not.toContain('AgentDesk');
    expect(toolEnds[5]!.result).toMatch(/^cat: \.config\/AgentDesk\/config\.json: No such file or directory\n0\n/);
    // Still the config the person wrote; the sessions of this very run are there and were never shown.
    expect(JSON.parse(await readFile(join(home, 'config.json'), 'utf8'))).toEqual(config());
    expect(JSON.stringify(toolEnds)).not.toMatch(/"provider":"ant"|sessions\.json/);
  }, 90_000);
});


describe.runIf(sandboxed)("the command line's code cache inside the workspace (a home folder holds ~/.cache)", () => {
  // A code cache is code the next `agentdesk` runs before any sandbox: a planted one would run the model's code on
  // the host. The gateway hides its folder like the data folder, and makes it first so no command can.
  it('exec and the file tools cannot write into it; afterwards it holds only what the CLI wrote', async () => {
    const ws = await tempDir('hard-cache-ws');
    const home = await tempDir('hard-cache-home');
    await writeConfig(home, config());
    const cache = join(ws, '.cache', 'agentdesk', 'code-cache');
    const { toolEnds, result, r } = await run(home, ws, [
      { toolCalls: [{ name: 'exec', arguments: { command: 'mkdir -p .cache/agentdesk/code-cache; echo code > .cache/agentdesk/code-cache/planted.v8cache; ls -A .cache/agentdesk/code-cache | wc -l' } }] },
      { toolCalls: [{ name: 'write', arguments: { path: '.cache/agentdesk/code-cache/planted2.v8cache', content: 'code' } }] },
      { toolCalls: [{ name: 'exec', arguments: { command: 'mv .cache/agentdesk .cache/moved 2>&1; mv .cache .cache-moved 2>&1; echo done' } }] },
      { text: 'Could not.' },
    ], 'auto', { XDG_CACHE_HOME: join(ws, '.cache') });
    expect(result.status, r.stderr).toBe('ok');
    expect(toolEnds.map((t) => [t.name, t.isError])).toEqual([['exec', false], ['write', true], ['exec', false]]);
    expect(toolEnds[0]!.result).toMatch(/^1\n/); // it wrote into an empty folder of its own, gone with the sandbox
    expect(toolEnds[1]!.result).toMatch(/outside the workspace: it is in AgentDesk's data folder/);
    expect(toolEnds[2]!.result).toMatch(/Device or resource busy[\s\S]*Device or resource busy/);
    const names = await readdir(cache);
    expect(names.filter((n) => n.startsWith('planted'))).toEqual([]);
    for (const n of names) expect(decodeURIComponent(n)).toMatch(/\/out\/main\/.+\.cjs\.v8cache$|\.tmp$/);
  }, 90_000);
});

describe('the plain-text output on a terminal', () => {
  it('control characters from the model and from tool output reach stdout and stderr escaped (--json keeps them exact)', async () => {
    const home = await tempDir('hard-esc-home');
    await writeConfig(home, config());
    const ws = await tempDir('hard-esc-ws');
    // Concealed text (SGR 8, here through the 8-bit CSI) left on would hide the approval prompt printed after it; a
    // carriage return overwrites a line, a bidi override reorders it; a failing tool's message carries them too.
    const turns: FakeTurn[] = [
      { text: 'Working\u009b8m', toolCalls: [{ name: 'read', arguments: { path: 'x\x1b[2J\x1b[8m.txt' } }] },
      { text: 'Done.\r\u202eok' },
    ];
    fake.enqueue(...turns);
    const r = await runCli(['agent', '--home', home, '--workspace', ws, '--message', 'go', '--approve', 'auto'], { env: cleanEnv(KEY), timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\x1b\x9b\r\u202e]/);
    expect(r.stderr).not.toMatch(/[\x1b\x9b\r\u202e]/);
    expect(r.stdout).toContain('Working\\x9b8m');
    expect(r.stdout).toContain('Done.\\r\\u202eok');
    expect(r.stderr).toMatch(/✗ read \(\d+ ms\): .*x\[2J\[8m\.txt/); // (the error line drops them: mcp/display-text.ts)
    expect(r.stderr).toMatch(/→ read \{"path":"x\\u001b\[2J/); // (JSON's own escape)
    fake.enqueue(...turns);
    const json = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--message', 'go', '--approve', 'auto'], { env: cleanEnv(KEY), timeoutMs: 60_000 });
    expect((json.lines.at(-1) as { payloads: { text: string }[] }).payloads.map((p) => p.text).join('')).toContain('Done.\r\u202eok');
  }, 60_000);
});
