/**
 * Both real providers, through the REAL SDKs, against the fake servers in test/fake: the shared contract of a
 * StreamFn (events, final message, faults → exactly one error event).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assistantText, toolCallsOf, type AssistantMessage } from '../../main/engine/messages.js';
import { streamAnthropic } from '../../main/providers/anthropic.js';
import { streamOpenAIChat } from '../../main/providers/openai-chat.js';
import { streamOpenAIResponses } from '../../main/providers/openai-responses.js';
import type { ModelDef, ProviderEvent, StreamFn, StreamRequest } from '../../main/providers/types.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeProvider } from '../fake/index.js';

interface Case {
  name: string;
  start: () => Promise<FakeProvider>;
  fn: StreamFn;
  api: ModelDef['api'];
  overloadedStatus: number;
  /** Events this wire format sends before the first text delta beyond Anthropic's/Chat's (fault offsets). */
  preamble: number;
}

const cases: Case[] = [
  { name: 'anthropic', start: () => startFakeAnthropic(), fn: streamAnthropic, api: 'anthropic', overloadedStatus: 529, preamble: 0 },
  { name: 'openai-chat', start: () => startFakeOpenAI(), fn: streamOpenAIChat, api: 'openai-chat', overloadedStatus: 503, preamble: 0 },
  { name: 'openai-responses', start: () => startFakeOpenAI(), fn: streamOpenAIResponses, api: 'openai-responses', overloadedStatus: 503, preamble: 3 },
];

interface Result {
  events: ProviderEvent[];
  terminal: Extract<ProviderEvent, { type: 'done' | 'error' }>;
  message: AssistantMessage;
}

async function collect(iter: AsyncIterable<ProviderEvent>, onEvent?: (e: ProviderEvent) => void): Promise<Result> {
  const events: ProviderEvent[] = [];
  for await (const e of iter) {
    events.push(e);
    onEvent?.(e);
  }
  const terminals = events.filter((e) => e.type === 'done' || e.type === 'error');
  expect(terminals).toHaveLength(1);
  const terminal = events.at(-1) as Result['terminal'];
  expect(terminal).toBe(terminals[0]);
  return { events, terminal, message: terminal.message };
}

/** Content without the provider's item ids (OpenAI Responses adds them; the shared contract ignores them). */
const plain = (blocks: AssistantMessage['content']) =>
  blocks.map((b) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'itemId' && k !== 'encrypted')));

const errorOf = (r: Result): Error & { status?: number; type?: string } => {
  if (r.terminal.type !== 'error') throw new Error(`expected an error event, got done: ${JSON.stringify(r.message)}`);
  return r.terminal.error as Error & { status?: number; type?: string };
};

describe.each(cases)('$name provider against the fake server', (c) => {
  let fake: FakeProvider;
  let model: ModelDef;
  const req = (over: Partial<StreamRequest> = {}): StreamRequest => ({
    model,
    apiKey: 'sk-test',
    systemPrompt: 'You are a test agent.',
    messages: [{ role: 'user', content: 'hello', timestamp: 1 }],
    tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
    thinking: 'off',
    signal: new AbortController().signal,
    idleTimeoutMs: 5_000,
    ...over,
  });

  beforeAll(async () => {
    fake = await c.start();
    model = { provider: c.name, id: 'fake-model', api: c.api, baseUrl: fake.baseUrl, contextWindow: 100_000, maxTokens: 4096, reasoning: true };
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
  });

  it('streams text in deltas and ends with done/stop', async () => {
    fake.enqueue({ text: 'Hello there, this is a longer reply.', chunkSize: 5 });
    const r = await collect(c.fn(req()));
    expect(r.events[0]).toMatchObject({ type: 'message_start' });
    const deltas = r.events.filter((e) => e.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(r.terminal).toMatchObject({ type: 'done', stopReason: 'stop' });
    expect(plain(r.message.content)).toEqual([{ type: 'text', text: 'Hello there, this is a longer reply.' }]);
    expect(r.message).toMatchObject({ role: 'assistant', provider: c.name, model: 'fake-model', api: c.api, stopReason: 'stop' });
    expect(fake.requests).toHaveLength(1); // no SDK retries, one request
  });

  it("plays a model's time to first token before the first event (the bench's model, firstByteMs)", async () => {
    fake.enqueue({ text: 'After a pause.', firstByteMs: 150 });
    const t0 = performance.now();
    const r = await collect(c.fn(req()));
    const took = performance.now() - t0;
    expect(plain(r.message.content)).toEqual([{ type: 'text', text: 'After a pause.' }]);
    expect(took).toBeGreaterThanOrEqual(145); // a lower bound only: a slow machine cannot fail it
  });

  it('streams thinking before text', async () => {
    fake.enqueue({ thinking: 'Let me think about it.', text: 'Done.' });
    const r = await collect(c.fn(req({ thinking: 'low' })));
    expect(r.events.filter((e) => e.type === 'thinking_delta').map((e) => (e as { delta: string }).delta).join('')).toBe('Let me think about it.');
    expect(r.message.content[0]).toMatchObject({ type: 'thinking', thinking: 'Let me think about it.' });
    expect(plain(r.message.content)[1]).toEqual({ type: 'text', text: 'Done.' });
    // event indices are indices into the final content
    for (const e of r.events) {
      if (e.type === 'thinking_delta') expect(r.message.content[e.index]!.type).toBe('thinking');
      if (e.type === 'text_delta') expect(r.message.content[e.index]!.type).toBe('text');
    }
  });

  it('assembles a tool call whose arguments arrive in fragments', async () => {
    fake.enqueue({ text: 'Reading.', toolCalls: [{ id: 'call_frag1', name: 'read', arguments: { path: 'src/some/long/path/main.ts' } }], chunkSize: 4 });
    const r = await collect(c.fn(req()));
    expect(r.events.filter((e) => e.type === 'toolcall_delta').length).toBeGreaterThan(3);
    const end = r.events.find((e) => e.type === 'toolcall_end');
    expect(end).toMatchObject({ id: 'call_frag1', name: 'read', arguments: { path: 'src/some/long/path/main.ts' } });
    expect(end).not.toHaveProperty('parseError');
    expect(r.terminal).toMatchObject({ type: 'done', stopReason: 'toolUse' });
    expect(plain(toolCallsOf(r.message))).toEqual([{ type: 'toolCall', id: 'call_frag1', name: 'read', arguments: { path: 'src/some/long/path/main.ts' } }]);
    expect(assistantText(r.message)).toBe('Reading.');
  });

  it('assembles two parallel tool calls', async () => {
    fake.enqueue({ toolCalls: [{ name: 'read', arguments: { path: 'a.ts' } }, { name: 'read', arguments: { path: 'b.ts' } }] });
    const r = await collect(c.fn(req()));
    const calls = toolCallsOf(r.message);
    expect(calls.map((t) => t.arguments)).toEqual([{ path: 'a.ts' }, { path: 'b.ts' }]);
    expect(new Set(calls.map((t) => t.id)).size).toBe(2);
    expect(r.events.filter((e) => e.type === 'toolcall_end')).toHaveLength(2);
  });

  it('reports invalid tool JSON as parseError, not a throw', async () => {
    fake.enqueue({ toolCalls: [{ name: 'read', arguments: '{"path": "a.ts", oops}' }] });
    const r = await collect(c.fn(req()));
    const end = r.events.find((e) => e.type === 'toolcall_end') as Extract<ProviderEvent, { type: 'toolcall_end' }>;
    expect(end.arguments).toEqual({});
    expect(end.parseError).toMatch(/^its arguments are not valid JSON/);
    expect(r.terminal).toMatchObject({ type: 'done', stopReason: 'toolUse' });
  });

  it('repairs truncated tool JSON cut by max tokens (length)', async () => {
    fake.enqueue({ toolCalls: [{ name: 'read', arguments: '{"path": "a.t' }], stopReason: 'length' });
    const r = await collect(c.fn(req()));
    expect(r.terminal).toMatchObject({ type: 'done', stopReason: 'length' });
    expect(toolCallsOf(r.message)[0]!.arguments).toEqual({ path: 'a.t' });
  });

  it('sends the extra request headers', async () => {
    fake.enqueue({ text: 'ok' });
    await collect(c.fn(req({ headers: { 'x-scenario': 'abc' } })));
    expect(fake.requests[0]!.headers['x-scenario']).toBe('abc');
  });

  it('ends a dropped connection with an error event holding the partial message', async () => {
    fake.enqueue({ text: 'Partial answer that will be cut off somewhere.', chunkSize: 6, fault: { kind: 'drop', afterEvents: 5 } });
    const r = await collect(c.fn(req()));
    const err = errorOf(r);
    expect(err).toBeInstanceOf(Error);
    expect(r.message.stopReason).toBe('error');
    expect(r.message.errorMessage).toBeTruthy();
    expect(assistantText(r.message).length).toBeGreaterThan(0);
    expect('Partial answer that will be cut off somewhere.'.startsWith(assistantText(r.message))).toBe(true);
  });

  it('ends a stalled stream with IdleTimeoutError within about a second', async () => {
    fake.enqueue({ text: 'Stalling after a few events here.', chunkSize: 5, fault: { kind: 'stall', afterEvents: 4 } });
    // Timed from the last event before the stall, not from the request: the SDK's set-up and the first events took
    // over 800 ms on a loaded machine (1 307 ms in all, against the 1 s bound), the idle watchdog's part ~200 ms.
    let last = Date.now();
    const r = await collect(c.fn(req({ idleTimeoutMs: 200 })), (e) => {
      if (e.type !== 'error') last = Date.now();
    });
    const elapsed = Date.now() - last;
    const err = errorOf(r);
    expect(err.name).toBe('IdleTimeoutError');
    expect(err.message).toMatch(/No data from the provider for 0\.2s/);
    expect(r.message.stopReason).toBe('error');
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('ends a clean EOF without the terminal event with an error, not a short reply', async () => {
    fake.enqueue({ text: 'This reply never finishes properly.', chunkSize: 6, fault: { kind: 'eof', afterEvents: 5 } });
    const r = await collect(c.fn(req()));
    const err = errorOf(r);
    expect(err.name).toBe('StreamTruncatedError');
    expect(err.message).toMatch({ anthropic: /before message_stop/, 'openai-chat': /before finish_reason/, 'openai-responses': /before response\.completed/ }[c.api as string]!);
    expect(r.message.stopReason).toBe('error');
    expect(assistantText(r.message).length).toBeGreaterThan(0);
  });

  it('ends a mid-stream error event with the SDK APIError', async () => {
    fake.enqueue({ text: 'Some text before the error.', chunkSize: 6, fault: { kind: 'stream_error', afterEvents: 4 + c.preamble, message: 'Overloaded mid-stream' } });
    const r = await collect(c.fn(req()));
    const err = errorOf(r);
    expect(err.constructor.name).toBe('APIError');
    expect(err.status).toBeUndefined();
    expect(err.message).toContain('Overloaded mid-stream');
    expect(r.message.stopReason).toBe('error');
    expect(assistantText(r.message).length).toBeGreaterThan(0);
  });

  it.each([
    ['rate_limit', 429, 'RateLimitError'],
    ['auth', 401, 'AuthenticationError'],
    ['context_overflow', 400, 'BadRequestError'],
  ] as const)('ends a %s HTTP error with the SDK error (status %d), without retrying', async (kind, status, cls) => {
    fake.enqueue({ fault: kind === 'rate_limit' ? { kind, retryAfterSeconds: 30 } : { kind } });
    const t0 = Date.now();
    const r = await collect(c.fn(req()));
    const err = errorOf(r);
    expect(err.status).toBe(status);
    expect(err.constructor.name).toBe(cls);
    expect(r.message.stopReason).toBe('error');
    expect(r.message.content).toEqual([]);
    expect(r.message.errorMessage).toContain(String(status));
    expect(fake.requests).toHaveLength(1);
    expect(Date.now() - t0).toBeLessThan(2_000); // retry-after is not slept
  });

  it('ends an overloaded error with the SDK error and its status', async () => {
    fake.enqueue({ fault: { kind: 'overloaded' } });
    const r = await collect(c.fn(req()));
    expect(errorOf(r).status).toBe(c.overloadedStatus);
    expect(fake.requests).toHaveLength(1);
  });

  it('ends an abort mid-stream with stopReason aborted', async () => {
    const ac = new AbortController();
    fake.enqueue({ text: 'A slow reply that the user stops halfway through.', chunkSize: 4, delayMs: 30 });
    const t0 = Date.now();
    const r = await collect(c.fn(req({ signal: ac.signal })), (e) => {
      if (e.type === 'text_delta') ac.abort();
    });
    const err = errorOf(r);
    expect(err.name).toBe('AbortError');
    expect(r.message.stopReason).toBe('aborted');
    expect(r.events.filter((e) => e.type === 'text_delta')).toHaveLength(1);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('ends a connection reset before headers with an error event', async () => {
    fake.enqueue({ fault: { kind: 'reset' } });
    const r = await collect(c.fn(req()));
    expect(errorOf(r).constructor.name).toBe('APIConnectionError');
    expect(fake.requests).toHaveLength(1);
  });

  it('applies the idle timeout before the headers too', async () => {
    fake.enqueue({ fault: { kind: 'hang' } });
    const r = await collect(c.fn(req({ idleTimeoutMs: 200 })));
    expect(errorOf(r).name).toBe('IdleTimeoutError');
  });
});
