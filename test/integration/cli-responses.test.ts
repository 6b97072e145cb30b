/**
 * `api: "openai-responses"` end to end through the built CLI (`agentdesk agent --json`), the real openai SDK and
 * the fake server's `/v1/responses`: a tool call round-trips (reasoning carried into the next request and the
 * next CLI turn), and each injected fault ends exactly as it does for the Anthropic and OpenAI Chat APIs (same
 * status, exit code, retries, attempts and tool outcomes; the outer loop recovers the transient ones).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeTurn } from '../fake/index.js';
import { encryptedFor } from '../fake/openai-responses.js';
import { cleanEnv, runCli, type CliResult } from '../support/cli.js';
import { homeWith, NOTES_FILES, readNotesScenario, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ files: NOTES_FILES });

const KEYS = { FAKE_ANT_KEY: 'sk-ant-test-key-0101', FAKE_OAI_KEY: 'sk-test-key-0102' };
const model = (id: string) => [{ id, contextWindow: 128000, maxTokens: 4096, reasoning: true }];

/** `idleSeconds`: the providers' idle watchdog (short for the stall case, roomy otherwise: CI machines are busy). */
const newHome = (idleSeconds = 30) =>
  homeWith({
    providers: {
      ant: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: idleSeconds, models: model('claude-fake') },
      chat: { api: 'openai-chat', baseUrl: fakes.openai.baseUrl, timeoutSeconds: idleSeconds, models: model('gpt-fake') },
      resp: { api: 'openai-responses', baseUrl: fakes.openai.baseUrl, timeoutSeconds: idleSeconds, models: model('o4-mini') },
    },
    authProfiles: [
      { id: 'ant:test', provider: 'ant', apiKeyEnv: 'FAKE_ANT_KEY' },
      { id: 'chat:test', provider: 'chat', apiKeyEnv: 'FAKE_OAI_KEY' },
      { id: 'resp:test', provider: 'resp', apiKeyEnv: 'FAKE_OAI_KEY' },
    ],
  });

type Result = { status: string; payloads: { text: string; isError?: boolean }[]; meta: Record<string, unknown> };
type Event = { stream: string; data: Record<string, unknown> };

function parse(r: CliResult): { result: Result; events: Event[] } {
  const result = r.lines.at(-1) as unknown as Result & { type: string };
  expect(result.type).toBe('result');
  return { result, events: r.lines.slice(0, -1) as unknown as Event[] };
}

const agent = (home: string, modelRef: string, message: string, extra: string[] = []) =>
  runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--model', modelRef, '--thinking', 'low', '--message', message, ...extra], {
    env: cleanEnv(KEYS),
  });

describe('agent --json with api "openai-responses"', () => {
  it('round-trips a tool call, carrying the reasoning item into the next request and the next turn', async () => {
    fakes.openai.requests.length = 0;
    fakes.openai.setDefault(readNotesScenario());
    const home = await newHome();
    const r = await agent(home, 'resp/o4-mini', 'What do my notes say?', ['--session', 's1']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const { result, events } = parse(r);
    expect(result.status).toBe('ok');
    expect(result.payloads.map((p) => p.text).join('\n')).toContain('The notes say: Buy milk.');
    expect(result.meta).toMatchObject({ provider: 'resp', model: 'o4-mini', profileId: 'resp:test' });
    const tool = events.filter((e) => e.stream === 'tool').map((e) => e.data);
    expect(tool.map((d) => d.phase)).toEqual(['start', 'end']);
    expect(tool[1]).toMatchObject({ name: 'read', isError: false });
    expect(events.some((e) => e.stream === 'thinking')).toBe(true);

    expect(fakes.openai.requests.map((q) => q.path)).toEqual(['/v1/responses', '/v1/responses']);
    const first = fakes.openai.requests[0]!.body;
    expect(first).toMatchObject({ store: false, reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] });
    const second = fakes.openai.requests[1]!.body.input as Record<string, unknown>[];
    const reasoning = second.find((i) => i.type === 'reasoning')!;
    expect(reasoning.encrypted_content).toBe(encryptedFor(String(reasoning.id)));
    const call = second.find((i) => i.type === 'function_call')!;
    expect(second.at(-1)).toMatchObject({ type: 'function_call_output', call_id: call.call_id });
    expect(String(second.at(-1)!.output)).toContain('Buy milk.');

    // The next CLI turn of the session sends both earlier reasoning items back, loaded from the transcript.
    fakes.openai.requests.length = 0;
    fakes.openai.setDefault({ text: 'Anything else?' });
    const next = await agent(home, 'resp/o4-mini', 'thanks', ['--session', 's1']);
    expect(next.exitCode).toBe(0);
    const input = fakes.openai.requests[0]!.body.input as Record<string, unknown>[];
    const carried = input.filter((i) => i.type === 'reasoning');
    expect(carried).toHaveLength(2);
    for (const item of carried) expect(item.encrypted_content).toBe(encryptedFor(String(item.id)));
    expect(input.at(-1)).toEqual({ role: 'user', content: 'thanks' });
  });
});

interface FaultCase {
  name: string;
  turns: FakeTurn[];
  /** What the person sees: the one-line error (status error) or the reply (status ok). */
  expectLine: RegExp;
  /** The outer loop retried after a failure of this class (its `retry` event), then the next attempt succeeded. */
  retried?: string;
  idleSeconds?: number;
}

// The fault hits the first request only; the default turn answers any retry.
const FAULTS: FaultCase[] = [
  { name: '429 rate limit', turns: [{ fault: { kind: 'rate_limit', retryAfterSeconds: 1 } }], expectLine: /^Default answer\.$/, retried: 'rate_limit' },
  { name: 'context overflow 400', turns: [{ fault: { kind: 'context_overflow' } }], expectLine: /too long for the model's context window|^Default answer\.$/i },
  { name: 'drop mid-stream', turns: [{ text: 'A partial reply that is cut off.', chunkSize: 4, fault: { kind: 'drop', afterEvents: 7 } }], expectLine: /^Default answer\.$/, retried: 'timeout' },
  {
    name: 'stall mid-stream',
    turns: [{ text: 'A reply that stalls.', chunkSize: 4, fault: { kind: 'stall', afterEvents: 7 } }],
    expectLine: /^Default answer\.$/,
    retried: 'timeout',
    idleSeconds: 2,
  },
  {
    name: 'invalid tool JSON',
    turns: [{ toolCalls: [{ name: 'read', arguments: '{"path": "notes.txt", oops}' }] }, { text: 'Recovered after the bad call.' }],
    expectLine: /Recovered after the bad call\./,
  },
];

const APIS = [
  ['anthropic', 'ant/claude-fake', () => fakes.anthropic],
  ['openai-chat', 'chat/gpt-fake', () => fakes.openai],
  ['openai-responses', 'resp/o4-mini', () => fakes.openai],
] as const;

describe.each(FAULTS)('fault "$name" ends the same way for all three APIs', (c) => {
  it('same status, exit code, error line and tool outcome', async () => {
    const outcomes: Record<string, unknown>[] = [];
    for (const [api, ref, fake] of APIS) {
      const server = fake();
      server.setDefault({ text: 'Default answer.' });
      server.enqueue(...c.turns);
      const home = await newHome(c.idleSeconds);
      const r = await agent(home, ref, 'read my notes', []);
      const { result, events } = parse(r);
      const line = result.status === 'ok' ? result.payloads.map((p) => p.text).join('\n') : String(result.meta.error);
      expect(line, api).toMatch(c.expectLine);
      expect(line.split('\n').length, api).toBe(1);
      expect(line, api).not.toContain(KEYS.FAKE_OAI_KEY);
      const toolEnds = events.filter((e) => e.stream === 'tool' && e.data.phase === 'end').map((e) => e.data.isError);
      const retries = events.filter((e) => e.stream === 'retry').map((e) => e.data.reason);
      if (c.retried) expect(retries, api).toEqual([c.retried]);
      outcomes.push({ status: result.status, exitCode: r.exitCode, toolEnds, retries, attempts: result.meta.attempts, lifecycle: events.at(-1)?.data.phase });
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[2]).toEqual(outcomes[0]);
  }, 60_000);
});
