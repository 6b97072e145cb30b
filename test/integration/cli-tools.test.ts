/**
 * Workspace tools end to end through the built CLI, the real Anthropic SDK and the fake server's scripted tool
 * calls (issue 7 "Done when"): edit and apply_patch change the file on disk as asked; grep and find honour
 * .gitignore; exec under `--approve deny` is refused with a result the model sees and the run goes on; `ask`
 * without a terminal refuses too; killing the CLI mid-command leaves no process behind (sandboxed exec).
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider, type FakeTurn } from '../fake/index.js';
import { cleanEnv, ensureBuilt, ROOT, runCli, tempDir, writeConfig } from '../support/cli.js';
import { detectSandbox } from '../../main/tools/sandbox/index.js';

let fake: FakeProvider;
let home: string;
const KEY = { FAKE_ANT_KEY: 'sk-ant-test-key-0707' };

type Event = { stream: string; data: Record<string, unknown> };

beforeAll(async () => {
  await ensureBuilt();
  fake = await startFakeAnthropic();
  home = await tempDir('tools-home');
  await writeConfig(home, {
    providers: { ant: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096 }] } },
    authProfiles: [{ id: 'ant:test', provider: 'ant', apiKeyEnv: 'FAKE_ANT_KEY' }],
    agent: { model: { primary: 'ant/claude-fake' } },
  });
}, 120_000);

afterAll(async () => {
  await fake?.close();
});

async function newWorkspace(): Promise<string> {
  const ws = await tempDir('tools-ws');
  await mkdir(join(ws, 'src'), { recursive: true });
  await writeFile(join(ws, 'src/app.js'), 'const greeting = "hello";\nconsole.log(greeting);\n');
  await writeFile(join(ws, 'src/util.js'), 'export const add = (a, b) => a + b;\n');
  await writeFile(join(ws, '.gitignore'), 'dist/\n');
  await mkdir(join(ws, 'dist'));
  await writeFile(join(ws, 'dist/app.js'), 'const greeting = "built";\n');
  return ws;
}

async function run(ws: string, turns: FakeTurn[], approve: string[] = []) {
  fake.enqueue(...turns);
  const r = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--message', 'do the task', ...approve], {
    env: cleanEnv(KEY),
    timeoutMs: 60_000,
  });
  const result = r.lines.at(-1) as { status: string; payloads: { text: string }[] };
  const events = r.lines.slice(0, -1) as unknown as Event[];
  const toolEnds = events.filter((e) => e.stream === 'tool' && e.data.phase === 'end').map((e) => e.data);
  return { r, result, events, toolEnds };
}

describe('tools through the CLI and the real SDK', () => {
  it('edit and apply_patch change the file on disk', async () => {
    const ws = await newWorkspace();
    const patch = '--- a/src/util.js\n+++ b/src/util.js\n@@ -1 +1,2 @@\n export const add = (a, b) => a + b;\n+export const sub = (a, b) => a - b;\n';
    const { result, toolEnds } = await run(ws, [
      { toolCalls: [{ name: 'edit', arguments: { path: 'src/app.js', edits: [{ oldText: '"hello"', newText: '"hi there"' }] } }] },
      { toolCalls: [{ name: 'apply_patch', arguments: { patch } }] },
      { text: 'Both changes made.' },
    ], ['--approve', 'auto']);
    expect(toolEnds.map((t) => [t.name, t.isError])).toEqual([['edit', false], ['apply_patch', false]]);
    expect(result.status).toBe('ok');
    expect(await readFile(join(ws, 'src/app.js'), 'utf8')).toBe('const greeting = "hi there";\nconsole.log(greeting);\n');
    expect(await readFile(join(ws, 'src/util.js'), 'utf8')).toBe('export const add = (a, b) => a + b;\nexport const sub = (a, b) => a - b;\n');
    // The model received the diff of its edit.
    const sent = JSON.stringify(fake.requests.at(-2)?.body);
    expect(sent).toContain('+const greeting = \\"hi there\\";');
  }, 60_000);

  it('grep and find honour .gitignore (read-only: no approval needed, even under --approve deny)', async () => {
    const ws = await newWorkspace();
    const { toolEnds, result } = await run(ws, [
      { toolCalls: [{ name: 'grep', arguments: { pattern: 'greeting =' } }, { name: 'find', arguments: { pattern: '**/*.js' } }] },
      { text: 'Searched.' },
    ], ['--approve', 'deny']);
    expect(result.status).toBe('ok');
    expect(toolEnds[0]).toMatchObject({ name: 'grep', isError: false, result: 'src/app.js:1:const greeting = "hello";' });
    expect(toolEnds[1]).toMatchObject({ name: 'find', isError: false, result: 'src/app.js\nsrc/util.js' });
  }, 60_000);

  it('exec under --approve deny is refused with a result the model sees, and the run continues', async () => {
    const ws = await newWorkspace();
    const { toolEnds, result, events } = await run(ws, [
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch pwned.txt' } }] },
      { toolCalls: [{ name: 'read', arguments: { path: 'src/app.js' } }] },
      { text: 'Understood, I will not run commands.' },
    ], ['--approve', 'deny']);
    expect(toolEnds[0]).toMatchObject({ name: 'exec', isError: true, result: 'Not run: approvals are set to deny: exec calls are refused without asking.' });
    expect(toolEnds[1]).toMatchObject({ name: 'read', isError: false });
    expect(result.status).toBe('ok');
    expect(result.payloads.map((p) => p.text).join('')).toContain('I will not run commands');
    expect(events.some((e) => e.stream === 'approval')).toBe(false);
    await expect(readFile(join(ws, 'pwned.txt'))).rejects.toThrow();
    const toModel = JSON.stringify(fake.requests.at(-2)?.body);
    expect(toModel).toContain('Not run: approvals are set to deny');
  }, 60_000);

  it('--approve ask without a terminal refuses and says how to allow', async () => {
    const ws = await newWorkspace();
    const { toolEnds, result, events, r } = await run(ws, [
      { toolCalls: [{ name: 'write', arguments: { path: 'new.txt', content: 'x' } }] },
      { text: 'ok' },
    ], ['--approve', 'ask']);
    expect(events.filter((e) => e.stream === 'approval').map((e) => [e.data.phase, e.data.decision])).toEqual([['request', undefined], ['resolved', 'deny']]);
    expect(toolEnds[0]).toMatchObject({ name: 'write', isError: true });
    // Nobody was asked: the tool result (which the model and the person read) says so, not "The person denied".
    expect(String(toolEnds[0]!.result)).toBe(
      'This write call needs approval and nobody could be asked (no terminal to ask on: run with --approve auto to allow such calls, or run it in a terminal to be asked), so it did not run. Do not retry it now; say in your reply what you wanted to do, so the person can allow it.',
    );
    expect(r.stderr).toContain('agentdesk: not run, nobody was asked: write: new.txt: no terminal to ask on');
    expect(result.status).toBe('ok');
  }, 60_000);

  it('rejects a bad --approve value with exit status 2', async () => {
    const r = await runCli(['agent', '--message', 'hi', '--approve', 'maybe'], { env: cleanEnv() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe('agentdesk: --approve must be one of ask, auto, deny, unsandboxed (got "maybe")');
  });
});

const sandboxed = (await detectSandbox()).kind === 'bwrap';

describe.runIf(sandboxed)('killing the CLI mid-command', () => {
  it('leaves no child behind, not even a setsid double-forked sleep', async () => {
    const ws = await newWorkspace();
    const marker = `987.${process.pid}`;
    fake.enqueue({ toolCalls: [{ name: 'exec', arguments: { command: `setsid bash -c "sleep ${marker} &"; sleep ${marker}` } }] });
    const child = spawn('node', [join(ROOT, 'bin/agentdesk.mjs'), 'agent', '--json', '--home', home, '--workspace', ws, '--message', 'go', '--approve', 'auto'], {
      env: cleanEnv(KEY),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const count = () => {
      try {
        return execFileSync('pgrep', ['-f', `^sleep ${marker}$`], { encoding: 'utf8' }).split('\n').filter(Boolean).length;
      } catch {
        return 0;
      }
    };
    try {
      const until = Date.now() + 20_000;
      while (count() < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(count()).toBe(2);
    } finally {
      child.kill('SIGKILL');
    }
    const deadline = Date.now() + 5000;
    while (count() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(count()).toBe(0);
  }, 40_000);
});
