/**
 * The headless CLI contract (SPEC "The headless command line") end to end: the built bin, config.json, the real
 * SDKs against fake provider servers on 127.0.0.1, JSON lines, exit codes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolLoopScenario } from '../fake/index.js';
import { cleanEnv, runCli, tempDir, writeConfig, type CliResult } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, NOTES_FILES, readNotesScenario, useCliFakes } from '../support/cli-fakes.js';

const KEYS = { FAKE_ANT_KEY: 'sk-ant-test-key-0001', FAKE_OAI_KEY: 'sk-test-key-0002' };

const fakes = useCliFakes({ files: NOTES_FILES });
const newHome = () =>
  homeWith(fakeProvidersConfig(fakes, { models: { fakeant: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, reasoning: true }] } }));

function checkJsonContract(r: CliResult) {
  const events = r.lines.slice(0, -1);
  const result = r.lines.at(-1)!;
  expect(events.length).toBeGreaterThan(0);
  for (const [i, e] of events.entries()) {
    expect(Object.keys(e)).toEqual(['type', 'runId', 'seq', 'stream', 'data']);
    expect(e.type).toBe('event');
    expect(e.seq).toBe(i);
    expect(e.runId).toBe(result.runId);
  }
  expect(Object.keys(result)).toEqual(['type', 'runId', 'status', 'payloads', 'usage', 'meta']);
  expect(result.type).toBe('result');
  return { events, result: result as { status: string; payloads: { text: string }[]; usage: Record<string, number>; meta: Record<string, unknown> } };
}

describe.each([
  ['anthropic', 'fakeant/claude-fake', 'fakeant:test', () => fakes.anthropic],
  ['openai', 'fakeoai/gpt-fake', 'fakeoai:test', () => fakes.openai],
])('agent --json against the fake %s server', (_name, model, profileId, fake) => {
  it('prints event lines then one ok result with usage, through a tool call and its result', async () => {
    const server = fake();
    server.requests.length = 0;
    server.setDefault(readNotesScenario());
    const home = await newHome();
    const r = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', model, '--message', 'What do my notes say?'], {
      env: cleanEnv(KEYS),
    });
    // stderr holds only the line naming the new session (stdout is the JSON contract).
    expect(r.stderr).toMatch(/^agentdesk: session cli-\d{8}-\d{6}-[0-9a-f]{4} \(new; continue it with --session cli-\S+\)$/);
    expect(r.exitCode).toBe(0);
    const { events, result } = checkJsonContract(r);
    expect(result.status).toBe('ok');
    expect(result.payloads.map((p) => p.text).join('\n')).toContain('The notes say: Buy milk.');
    expect(result.usage.output).toBeGreaterThan(0);
    expect(result.usage.input).toBeGreaterThan(0);
    expect(result.usage.total).toBe(result.usage.input + result.usage.cacheRead + result.usage.cacheWrite + result.usage.output);
    expect(result.meta).toMatchObject({ model: model.split('/')[1], provider: model.split('/')[0], profileId, attempts: 1, compactions: 0 });
    const toolEvents = events.filter((e) => e.stream === 'tool').map((e) => e.data as Record<string, unknown>);
    expect(toolEvents.map((d) => d.phase)).toEqual(['start', 'end']);
    expect(toolEvents[0]).toMatchObject({ name: 'read', args: { path: 'notes.txt' } });
    expect(toolEvents[1]).toMatchObject({ name: 'read', isError: false });
    expect(String(toolEvents[1]!.result)).toContain('Buy milk.');
    expect(events.some((e) => e.stream === 'thinking')).toBe(true);
    expect(events[0]).toMatchObject({ stream: 'lifecycle', data: { phase: 'start' } });
    expect(events.at(-1)).toMatchObject({ stream: 'lifecycle', data: { phase: 'end' } });
    // Two model calls; the second carried the tool result; the key came from the configured env profile.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('Buy milk.');
    expect(String(server.requests[0]!.headers.authorization)).toContain(Object.values(KEYS)[server.api === 'anthropic' ? 0 : 1]);
  });

  it('the next turn of a session sends the earlier history', async () => {
    const server = fake();
    const home = await newHome();
    server.setDefault({ text: 'First answer.' });
    const args = ['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', model, '--session', 'chat-1'];
    expect((await runCli([...args, '--message', 'first question'], { env: cleanEnv(KEYS) })).exitCode).toBe(0);
    server.requests.length = 0;
    server.setDefault({ text: 'Second answer.' });
    const r = await runCli([...args, '--message', 'second question'], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(0);
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    expect(sent).toContain('first question');
    expect(sent).toContain('First answer.');
    expect(sent).toContain('second question');
  });

  it('a rejected key ends the run in error with exit 1 and a clear message', async () => {
    const server = fake();
    server.enqueue({ fault: { kind: 'auth' } });
    const home = await newHome();
    const r = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', model, '--message', 'hi'], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(1);
    const { result } = checkJsonContract(r);
    expect(result.status).toBe('error');
    expect(String(result.meta.error)).toMatch(/401|key|auth/i);
    expect(String(result.meta.error)).not.toContain(KEYS.FAKE_ANT_KEY);
  });
});

describe('agent without --json', () => {
  it('prints the reply as plain text and progress on stderr', async () => {
    fakes.anthropic.setDefault(toolLoopScenario({ toolName: 'list', args: {}, finalText: 'Listed it.' }));
    const home = await newHome();
    const r = await runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--message', 'list'], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe('Listed it.');
    expect(r.stderr).toContain('list');
  });
});

describe('the demo model', () => {
  it('works with no key and no network, through a real tool loop', async () => {
    const home = await tempDir('home');
    const r = await runCli(['agent', '--json', '--model', 'demo/agent', '--home', home, '--workspace', fakes.workspace, '--message', 'What is here?']);
    expect(r.exitCode).toBe(0);
    const { events, result } = checkJsonContract(r);
    expect(result.status).toBe('ok');
    expect(result.payloads.at(-1)!.text).toContain('[Demo model]');
    expect(events.filter((e) => e.stream === 'tool' && (e.data as { phase: string }).phase === 'start').map((e) => (e.data as { name: string }).name)).toContain('list');
    expect(result.meta).toMatchObject({ provider: 'demo', model: 'agent', profileId: null });
  });

  it('plain mode streams the reply to stdout', async () => {
    const home = await tempDir('home');
    const r = await runCli(['agent', '--model', 'demo/agent', '--home', home, '--workspace', fakes.workspace, '--message', 'hi']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('[Demo model]');
    expect(r.stderr).toMatch(/demo/i);
  });
});

describe('bad usage and bad config exit with 2 and one line naming the problem', () => {
  it.each([
    [['agent'], /--message/],
    [['agent', '--message', 'x', '--bogus'], /bogus/],
    [['agent', '--message', 'x', '--thinking', 'huge'], /--thinking/],
    [['agent', '--message', 'x', '--timeout', '-3'], /--timeout/],
    [['agent', '--message', 'x', '--model', 'nomodel'], /PROVIDER\/MODEL/],
    [['agent', '--message', 'x', '--model', 'fakeant/unknown-model'], /unknown-model/],
    [['agent', '--message', 'x', '--workspace', '/definitely/not/here'], /not\/here/],
    [['frobnicate'], /frobnicate/],
  ])('%j', async (args, pattern) => {
    const home = await newHome();
    const r = await runCli([...args, '--home', home]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  });

  it.each([
    ['{ "agent": { "maxConcurrent": "four" } ', /config\.json/],
    ['{ "agent": { "maxConcurrent": "four" } }', /maxConcurrent/],
    ['{ "agnet": {} }', /agnet/],
  ])('config %j', async (text, pattern) => {
    const home = await tempDir('home');
    await writeConfig(home, text);
    const r = await runCli(['agent', '--home', home, '--model', 'demo/agent', '--message', 'x']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  });
});

describe('timeouts', () => {
  it('--timeout ends a stalled run with status timeout and exit 1', async () => {
    fakes.anthropic.enqueue({ text: 'I am about to stall forever', fault: { kind: 'stall', afterEvents: 3 } });
    const home = await newHome();
    const started = Date.now();
    const r = await runCli(['agent', '--json', '--timeout', '1', '--home', home, '--workspace', fakes.workspace, '--model', 'fakeant/claude-fake', '--message', 'x'], {
      env: cleanEnv(KEYS),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.exitCode).toBe(1);
    const { result } = checkJsonContract(r);
    expect(result.status).toBe('timeout');
    expect(String(result.meta.error)).toMatch(/timed out/);
  });
});
