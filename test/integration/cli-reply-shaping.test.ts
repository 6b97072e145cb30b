/**
 * Subscription fidelity and reply shaping end to end (E9, E14, E16): the built `agentdesk agent` against the fake
 * servers through the real SDKs. Think tags split across SSE chunks never reach the reply or the assistant stream;
 * NO_REPLY yields no payload, no stdout text and status ok; invalid tool-call JSON becomes an error tool result and
 * the run continues.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trailingToolResults } from '../fake/index.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ files: { 'notes.txt': 'Buy milk.\n' } });
const KEYS = { FAKE_ANT_KEY: 'sk-ant-test-key-0101', FAKE_OAI_KEY: 'sk-test-key-0102' };

const newHome = (agent: Record<string, unknown> = {}) =>
  homeWith({
    agent,
    ...fakeProvidersConfig(fakes, {
      models: {
        fakeoai: [
          { id: 'gpt-fake', contextWindow: 128000, maxTokens: 4096 },
          { id: 'r1-fake', contextWindow: 128000, maxTokens: 4096, reasoning: true },
        ],
      },
    }),
  });

type Line = { stream?: string; data?: Record<string, unknown>; status?: string; payloads?: { text: string }[]; meta?: Record<string, unknown> };

async function agent(model: string, extra: string[] = [], agentConfig: Record<string, unknown> = {}) {
  const home = await newHome(agentConfig);
  const r = await runCli(['agent', ...extra, '--home', home, '--workspace', fakes.workspace, '--model', model, '--message', 'go'], { env: cleanEnv(KEYS) });
  const lines = r.lines as Line[];
  const assistant = lines.filter((l) => l.stream === 'assistant').map((l) => l.data!);
  return { ...r, result: lines.at(-1)!, assistant, deltas: assistant.map((d) => String(d.delta)).join('') };
}

describe.each([
  ['anthropic', 'fakeant/claude-fake', () => fakes.anthropic],
  ['openai', 'fakeoai/gpt-fake', () => fakes.openai],
])('through the %s SDK', (_name, model, fake) => {
  it('think tags split across chunks never reach the reply or the assistant stream', async () => {
    fake().enqueue({ text: '<think>secret plan: add 2 and 2</think>\n\nThe answer is `4`.', chunkSize: 3 });
    const r = await agent(model, ['--json']);
    expect(r.exitCode).toBe(0);
    expect(r.deltas).toBe('The answer is `4`.');
    expect(JSON.stringify(r.assistant)).not.toMatch(/secret|think>/);
    expect(r.result.payloads).toEqual([{ text: 'The answer is `4`.' }]);
    const thinking = (r.lines as Line[]).filter((l) => l.stream === 'thinking').map((l) => String(l.data!.delta)).join('');
    expect(thinking).toBe('secret plan: add 2 and 2');
  });

  it('reasoning is in the payloads only when agent.verbose is on', async () => {
    fake().enqueue({ text: '<think>weigh the options</think>Option B.' }, { text: '<think>weigh the options</think>Option B.' });
    const quiet = await agent(model, ['--json']);
    expect(quiet.result.payloads).toEqual([{ text: 'Option B.' }]);
    const verbose = await agent(model, ['--json'], { verbose: true });
    expect(verbose.result.payloads).toEqual([{ text: 'Reasoning:\nweigh the options' }, { text: 'Option B.' }]);
  });

  it('NO_REPLY yields no payload, no assistant text and status ok', async () => {
    fake().enqueue({ text: 'NO_REPLY', chunkSize: 2 });
    const r = await agent(model, ['--json']);
    expect(r.exitCode).toBe(0);
    expect(r.result.status).toBe('ok');
    expect(r.result.payloads).toEqual([]);
    expect(r.deltas).toBe('');
  });

  it('NO_REPLY prints nothing on stdout in plain mode', async () => {
    fake().enqueue({ text: '{"action":"NO_REPLY"}', chunkSize: 4 });
    const r = await agent(model);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('invalid tool-call JSON gives an error tool result and the run continues', async () => {
    const server = fake();
    server.requests.length = 0;
    server.enqueue({ toolCalls: [{ name: 'read', arguments: '{"path": "notes.txt", ' + '"x": tru' }] });
    server.enqueue((req) => ({ text: `Retried after: ${trailingToolResults(req)?.slice(0, 40)}` }));
    const r = await agent(model, ['--json']);
    expect(r.exitCode).toBe(0);
    expect(r.result.status).toBe('ok');
    const end = (r.lines as Line[]).find((l) => l.stream === 'tool' && l.data!.phase === 'end')!.data!;
    expect(end).toMatchObject({ name: 'read', isError: true });
    expect(String(end.result)).toMatch(/not valid JSON/);
    expect(server.requests).toHaveLength(2);
    expect(r.result.payloads![0]!.text).toMatch(/^Retried after: The call to read was not run: its/);
  });

  it('a tool the model invents gets an error result and the run continues', async () => {
    fake().enqueue({ toolCalls: [{ name: 'delete_everything', arguments: {} }] }, { text: 'Sorry.' });
    const r = await agent(model, ['--json']);
    expect(r.result.status).toBe('ok');
    const end = (r.lines as Line[]).find((l) => l.stream === 'tool' && l.data!.phase === 'end')!.data!;
    expect(end).toMatchObject({ isError: true });
    expect(String(end.result)).toMatch(/Unknown tool "delete_everything"/);
  });
});

describe('through the openai SDK only', () => {
  it('a reasoning model that only closes </think> keeps its reasoning out of the reply (held start)', async () => {
    fakes.openai.enqueue({ text: 'The user wants a sum. 2 + 2 = 4.\n</think>\n\nIt is 4.', chunkSize: 5 });
    const r = await agent('fakeoai/r1-fake', ['--json']);
    expect(r.deltas).toBe('It is 4.');
    expect(r.result.payloads).toEqual([{ text: 'It is 4.' }]);
  });

  it('a tool call written as JSON text is promoted and runs', async () => {
    fakes.openai.requests.length = 0;
    fakes.openai.enqueue({ text: '{"name":"read","arguments":{"path":"notes.txt"}}', chunkSize: 6 });
    fakes.openai.enqueue((req) => ({ text: `Notes: ${trailingToolResults(req)?.split('\n')[0]}` }));
    const r = await agent('fakeoai/gpt-fake', ['--json']);
    expect(r.result.status).toBe('ok');
    expect(r.deltas).not.toContain('"arguments"');
    const start = (r.lines as Line[]).find((l) => l.stream === 'tool' && l.data!.phase === 'start')!.data!;
    expect(start).toMatchObject({ name: 'read', args: { path: 'notes.txt' } });
    expect(r.result.payloads![0]!.text).toContain('Buy milk.');
  });

  it('send_message posts an interim message and a repeating final reply is not delivered twice', async () => {
    fakes.openai.enqueue({ toolCalls: [{ name: 'send_message', arguments: { text: 'Build is green, two tests fixed.' } }] });
    fakes.openai.enqueue({ text: 'Build is green, two tests fixed.' });
    const r = await agent('fakeoai/gpt-fake', ['--json']);
    expect(r.result.status).toBe('ok');
    expect(r.assistant.filter((d) => d.interim)).toHaveLength(1);
    expect(r.result.payloads).toEqual([{ text: 'Build is green, two tests fixed.' }]);
    fakes.openai.enqueue({ toolCalls: [{ name: 'send_message', arguments: { text: 'Working on it.' } }] });
    fakes.openai.enqueue({ text: 'All done.' });
    const plain = await agent('fakeoai/gpt-fake');
    expect(plain.stdout).toBe('Working on it.\n\nAll done.');
  });
});

describe('verbose replies (E16, E21): --verbose, settings.json, /verbose', () => {
  const scenario = () =>
    fakes.anthropic.setDefault((req) =>
      trailingToolResults(req) === null
        ? { thinking: 'First read the notes.', toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] }
        : { thinking: 'They say milk.', text: 'The notes say: Buy milk.' },
    );
  const model = 'fakeant/claude-fake-r';
  const home = (extra: Record<string, unknown> = {}) =>
    homeWith({
      ...fakeProvidersConfig(fakes, { models: { fakeant: [{ id: 'claude-fake-r', contextWindow: 200000, maxTokens: 4096, reasoning: true }] } }),
      ...extra,
    });
  const run = (h: string, extra: string[], message = 'read the notes') =>
    runCli(['agent', '--json', ...extra, '--home', h, '--workspace', fakes.workspace, '--model', model, '--thinking', 'low', '--message', message], { env: cleanEnv(KEYS) });
  const texts = (r: { lines: unknown[] }) => ((r.lines.at(-1) as Line).payloads ?? []).map((p) => p.text);

  it('--verbose adds the reasoning first and a line for each tool call in its place; without it, only the reply', async () => {
    scenario();
    const h = await home();
    expect(texts(await run(h, []))).toEqual(['The notes say: Buy milk.']);
    expect(texts(await run(h, ['--verbose']))).toEqual(['Reasoning:\nFirst read the notes.\n\nThey say milk.', '🔧 read notes.txt', 'The notes say: Buy milk.']);
  });

  it("the Settings toggle (settings.json defaults.verbose) and a session's /verbose turn it on and off", async () => {
    scenario();
    const h = await home();
    await writeFile(join(h, 'settings.json'), JSON.stringify({ defaults: { verbose: true } }));
    expect(texts(await run(h, ['--session', 'v']))).toHaveLength(3);
    expect((await run(h, ['--session', 'v'], '/verbose off')).exitCode).toBe(0);
    expect(texts(await run(h, ['--session', 'v']))).toEqual(['The notes say: Buy milk.']);
  });
});
