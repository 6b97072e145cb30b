/**
 * X1 through the built CLI against the REAL reference server `@modelcontextprotocol/server-everything` (stdio) and
 * the fake providers with both real SDKs: tools offered as `mcp__everything__…`, `echo` round-trips, `get-env` shows
 * no key, a server whose command does not exist costs one stderr line and the run ends ok, no server process is
 * left after a normal exit or a SIGKILL of the CLI, a hanging tool is cut off at its timeout, and an image result
 * reaches an Anthropic request as an image block.
 */
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolLoopScenario, type RecordedRequest } from '../fake/index.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';
import { cleanEnv, ROOT, runCli } from '../support/cli.js';

const fakes = useCliFakes({ workspacePrefix: 'mcp-ws' });
const SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const KEYS = { FAKE_ANT_KEY: 'sk-ant-mcp-test-key-4f1c9a', FAKE_OAI_KEY: 'sk-oai-mcp-test-key-77b2e0' };

/** An `everything` server entry; `marker` is an extra argument (ignored by the server) to find its process. */
const everything = (marker: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [SERVER, 'stdio', marker],
  ...extra,
});

async function home(servers: Record<string, unknown>, model = 'fakeant/claude-fake') {
  // The fake Claude takes images (X3: a model entry says so), so an MCP image result is sent as one.
  const models = { fakeant: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, input: ['text', 'image'] as never }] };
  return homeWith(fakeProvidersConfig(fakes, { models, extra: { mcpServers: servers, agent: { model: { primary: model } } } }), 'mcp-home');
}

type Event = { stream: string; data: Record<string, unknown> };

async function run(h: string, opts: { model?: string; env?: Record<string, string>; timeoutMs?: number } = {}) {
  const r = await runCli(['agent', '--json', '--home', h, '--workspace', fakes.workspace, '--message', 'use the tool', '--approve', 'auto', ...(opts.model ? ['--model', opts.model] : [])], {
    env: cleanEnv({ ...KEYS, ...opts.env }),
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  const result = r.lines.at(-1) as { status: string; payloads: { text: string }[] };
  const events = r.lines.slice(0, -1) as unknown as Event[];
  const toolEnds = events.filter((e) => e.stream === 'tool' && e.data.phase === 'end').map((e) => e.data);
  return { r, result, events, toolEnds };
}

/** PIDs of live processes whose command line contains `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const toolNames = (req: RecordedRequest | undefined): string[] =>
  ((req?.body?.tools ?? []) as { name?: string; function?: { name: string } }[]).map((t) => t.name ?? t.function!.name);

describe('MCP over stdio against server-everything', () => {
  it.each([
    ['Anthropic', 'fakeant/claude-fake', 'anthropic'],
    ['OpenAI Chat', 'fakeoai/gpt-fake', 'openai'],
  ] as const)('%s: tools are offered as mcp__everything__…, and echo round-trips', async (_label, model, which) => {
    const marker = `--agentdesk-test-${randomUUID()}`;
    const h = await home({ everything: everything(marker) }, model);
    const fake = fakes[which];
    fake.enqueue(
      toolLoopScenario({ toolName: 'mcp__everything__echo', args: { message: 'hello over MCP' }, finalText: (res) => `The server said: ${res}` }),
      toolLoopScenario({ toolName: 'mcp__everything__echo', args: { message: 'hello over MCP' }, finalText: (res) => `The server said: ${res}` }),
    );
    const { r, result, toolEnds } = await run(h);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result.status).toBe('ok');
    const first = fake.requests.at(-2);
    const names = toolNames(first);
    expect(names).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-env', 'mcp__everything__get-sum', 'read', 'exec']));
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
    expect(toolEnds).toEqual([expect.objectContaining({ name: 'mcp__everything__echo', isError: false, result: 'Echo: hello over MCP' })]);
    expect(result.payloads.map((p) => p.text).join('')).toBe('The server said: Echo: hello over MCP');
    // The CLI has exited: its server with it.
    expect(await processesWith(marker)).toEqual([]);
  }, 90_000);

  it('get-env: the server sees no provider key and no key-like variable, only what it was given', async () => {
    const marker = `--agentdesk-test-${randomUUID()}`;
    const h = await home({ everything: everything(marker, { env: { MCP_GIVEN: 'visible-to-the-server', FROM_ENV: '${env:AGENTDESK_TEST_PASSED}' } }) });
    const scenario = toolLoopScenario({ toolName: 'mcp__everything__get-env', args: {}, finalText: 'done' });
    fakes.anthropic.enqueue(scenario, scenario);
    const secretEnv = {
      ANTHROPIC_API_KEY: 'sk-ant-parent-environment-0001',
      OPENAI_API_KEY: 'sk-parent-openai-environment-0002',
      GITHUB_TOKEN: 'ghp_parentgithubtoken00000000003',
      MY_SERVICE_SECRET: 'parent-secret-value-0004',
      AWS_SECRET_ACCESS_KEY: 'parent-aws-secret-0005',
      COPY_OF_KEY: KEYS.FAKE_ANT_KEY,
      AGENTDESK_TEST_PASSED: 'passed-by-reference',
    };
    const { result } = await run(h, { env: secretEnv });
    expect(result.status).toBe('ok');
    const sent = JSON.stringify(fakes.anthropic.requests.at(-1)?.body);
    expect(sent).toContain('visible-to-the-server');
    expect(sent).toContain('passed-by-reference');
    expect(sent).toContain('PATH');
    for (const [name, value] of Object.entries({ ...secretEnv, ...KEYS })) {
      if (name === 'AGENTDESK_TEST_PASSED') continue;
      expect(sent, name).not.toContain(value);
      expect(sent, name).not.toContain(`"${name}"`);
      expect(sent, name).not.toContain(`\\"${name}\\"`);
    }
    expect(sent).not.toMatch(/DBUS_SESSION_BUS_ADDRESS|SSH_AUTH_SOCK|GNOME_KEYRING/);
  }, 90_000);

  it('a server whose command does not exist: one stderr line naming it and why, and the run ends ok', async () => {
    const h = await home({ ghost: { command: 'agentdesk-no-such-mcp-server' } });
    fakes.anthropic.enqueue({ text: 'Fine without it.' });
    const { r, result } = await run(h);
    expect(result.status).toBe('ok');
    expect(r.exitCode).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.includes('MCP'));
    expect(lines).toEqual(['agentdesk: MCP server "ghost" is not available: command not found: agentdesk-no-such-mcp-server — the run goes on without its tools']);
    expect(toolNames(fakes.anthropic.requests.at(-1)).some((n) => n.startsWith('mcp__'))).toBe(false);
  }, 60_000);

  it('a hanging tool is cut off at its timeoutMs: the model gets an error result and the run goes on', async () => {
    const marker = `--agentdesk-test-${randomUUID()}`;
    const h = await home({ everything: everything(marker, { timeoutMs: 1500 }) });
    fakes.anthropic.enqueue(
      toolLoopScenario({ toolName: 'mcp__everything__trigger-long-running-operation', args: { duration: 60, steps: 1 }, finalText: 'It timed out.' }),
      toolLoopScenario({ toolName: 'mcp__everything__trigger-long-running-operation', args: { duration: 60, steps: 1 }, finalText: 'It timed out.' }),
    );
    const started = Date.now();
    const { result, toolEnds } = await run(h);
    expect(result.status).toBe('ok');
    expect(toolEnds).toHaveLength(1);
    expect(toolEnds[0]).toMatchObject({ isError: true });
    expect(String(toolEnds[0]!.result)).toContain('did not answer within 1.5 s; the call was cancelled');
    expect(Number(toolEnds[0]!.durationMs)).toBeLessThan(10_000);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await processesWith(marker)).toEqual([]);
  }, 90_000);

  it('progress notifications show as live updates of the tool row', async () => {
    const h = await home({ everything: everything(`--agentdesk-test-${randomUUID()}`) });
    const scenario = toolLoopScenario({ toolName: 'mcp__everything__trigger-long-running-operation', args: { duration: 1, steps: 2 }, finalText: 'Done.' });
    fakes.anthropic.enqueue(scenario, scenario);
    const { result, events } = await run(h);
    expect(result.status).toBe('ok');
    const updates = events.filter((e) => e.stream === 'tool' && e.data.phase === 'update').map((e) => String(e.data.partial));
    // The last step's notification may come after the result (then the row is already done): at least the first.
    expect(updates[0]).toBe('progress 1/2\n');
    expect(updates.every((u) => /^progress [12]\/2\n$/.test(u))).toBe(true);
  }, 90_000);

  it('tool budget: MCP tools over 10 % of the context window are named in one warning line', async () => {
    const h = await homeWith(
      fakeProvidersConfig(fakes, {
        extra: {
          mcpServers: { one: everything(`--agentdesk-test-${randomUUID()}`), two: everything(`--agentdesk-test-${randomUUID()}`) },
          agent: { model: { primary: 'fakeant/claude-fake' }, contextTokens: 16_000 },
        },
      }),
      'mcp-home',
    );
    fakes.anthropic.enqueue({ text: 'ok' });
    const { r, result } = await run(h);
    expect(result.status).toBe('ok');
    const lines = r.stderr.split('\n').filter((l) => l.includes('MCP tool definitions'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agentdesk: MCP tool definitions take about \d+ tokens, \d+ % of the 16000-token context window; switch off tools you do not need/);
  }, 90_000);

  it('an image result reaches the Anthropic request as an image block', async () => {
    const h = await home({ everything: everything(`--agentdesk-test-${randomUUID()}`) });
    fakes.anthropic.enqueue(
      toolLoopScenario({ toolName: 'mcp__everything__get-tiny-image', args: {}, finalText: 'A tiny image.' }),
      toolLoopScenario({ toolName: 'mcp__everything__get-tiny-image', args: {}, finalText: 'A tiny image.' }),
    );
    const { result } = await run(h);
    expect(result.status).toBe('ok');
    const messages = fakes.anthropic.requests.at(-1)?.body.messages as { role: string; content: unknown }[];
    const toolResult = (messages.at(-1)!.content as { type: string; content: { type: string; source?: { type: string; media_type: string; data: string } }[] }[]).find(
      (b) => b.type === 'tool_result',
    )!;
    const image = toolResult.content.find((b) => b.type === 'image');
    expect(image?.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
    expect(image!.source!.data.length).toBeGreaterThan(100);
    expect(toolResult.content.find((b) => b.type === 'text')).toBeDefined();
  }, 90_000);

  it('SIGKILL of the CLI while a server runs a call: the server is gone shortly after (parent-death check)', async () => {
    const marker = `--agentdesk-test-${randomUUID()}`;
    // A stubborn server: a shell that starts the real one and then keeps running whatever happens to its stdin — a
    // closed pipe alone would not end it, only the process group being ended does.
    const h = await home({
      everything: { command: 'sh', args: ['-c', `"${process.execPath}" "${SERVER}" stdio ${marker} & sleep 300 # ${marker}`] },
    });
    fakes.anthropic.enqueue(
      toolLoopScenario({ toolName: 'mcp__everything__trigger-long-running-operation', args: { duration: 60, steps: 1 }, finalText: 'never' }),
    );
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'agentdesk.mjs'), 'agent', '--home', h, '--workspace', fakes.workspace, '--message', 'go', '--approve', 'auto'], {
      env: cleanEnv(KEYS),
      stdio: 'ignore',
    });
    try {
      const pids = await waitFor(async () => {
        const found = await processesWith(marker);
        return found.length > 0 ? found : undefined;
      }, 30_000);
      expect(pids, 'the server started').toBeDefined();
      // Let the call reach the server, then kill the CLI outright.
      await new Promise((r) => setTimeout(r, 500));
      child.kill('SIGKILL');
      const left = await waitFor(async () => ((await processesWith(marker)).length === 0 ? true : undefined), 8000);
      expect(left, `still running: ${(await processesWith(marker)).join(', ')}`).toBe(true);
    } finally {
      child.kill('SIGKILL');
      for (const pid of await processesWith(marker)) {
        for (const target of [-pid, pid]) {
          try {
            process.kill(target, 'SIGKILL'); // its group too (what a failing run would leave)
          } catch {
            // gone
          }
        }
      }
    }
  }, 90_000);
});
