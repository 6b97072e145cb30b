/**
 * Drives both fake servers with the REAL SDKs (maxRetries 0): raw streaming and the strict helpers prove the
 * wire format; each fault must surface the way the real SDKs surface it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, toolLoopScenario, type FakeFault, type FakeProvider, type FakeTurn } from '../fake/index.js';

const KEY = 'sk-test-key-0123456789';
const RICH: FakeTurn = {
  thinking: 'The user wants two files read in parallel.',
  text: 'Reading both files now.',
  toolCalls: [
    { name: 'read', arguments: { path: 'src/a.ts' } },
    { id: 'given_id', name: 'read', arguments: { path: 'src/b.ts', limit: 5 } },
  ],
  usage: { input: 472, output: 89, cacheRead: 2048, cacheWrite: 1024 },
  chunkSize: 5,
};

async function collect<T>(it: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of it) items.push(x);
    return { items };
  } catch (error) {
    return { items, error };
  }
}

/** Resolves with the items seen so far if the iterator produces nothing for `quietMs`. */
async function untilQuiet<T>(iterable: AsyncIterable<T>, quietMs: number): Promise<{ items: T[]; quiet: boolean }> {
  const items: T[] = [];
  const iterator = iterable[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const quiet = new Promise<'quiet'>((r) => (timer = setTimeout(() => r('quiet'), quietMs)));
    const next = await Promise.race([iterator.next(), quiet]);
    clearTimeout(timer);
    if (next === 'quiet') return { items, quiet: true };
    if (next.done) return { items, quiet: false };
    items.push(next.value);
  }
}

describe('fake Anthropic server with @anthropic-ai/sdk', () => {
  let fake: FakeProvider;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ baseURL: fake.baseUrl, apiKey: KEY, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const params = { model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hi' }] };

  it('streams thinking, text, two tool calls and usage in raw events', async () => {
    fake.enqueue(RICH);
    const { data: stream, response } = await client.messages.create({ ...params, stream: true }).withResponse();
    expect(response.headers.get('request-id')).toMatch(/^req_fake/);
    const { items, error } = await collect(stream);
    expect(error).toBeUndefined();
    const types = items.map((e) => e.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    const deltas = items.flatMap((e) => (e.type === 'content_block_delta' ? [e.delta] : []));
    const join = (t: string, f: string) => deltas.filter((d) => d.type === t).map((d) => (d as unknown as Record<string, string>)[f]).join('');
    expect(join('thinking_delta', 'thinking')).toBe(RICH.thinking);
    expect(join('text_delta', 'text')).toBe(RICH.text);
    expect(deltas.filter((d) => d.type === 'text_delta').length).toBe(Math.ceil(RICH.text!.length / 5));
    const start = items[0]!.type === 'message_start' ? items[0]!.message.usage : undefined;
    expect(start).toMatchObject({ input_tokens: 472, cache_read_input_tokens: 2048, cache_creation_input_tokens: 1024 });
    const delta = items.find((e) => e.type === 'message_delta');
    expect(delta).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 89 } });
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.requests.at(-1)!.body).toMatchObject({ model: 'claude-fake', stream: true });
  });

  it('passes the strict MessageStream helper', async () => {
    fake.enqueue(RICH);
    const msg = await client.messages.stream(params).finalMessage();
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(msg.content[0]).toMatchObject({ thinking: RICH.thinking, signature: expect.stringMatching(/^EqQB/) });
    expect(msg.content[2]).toMatchObject({ name: 'read', input: { path: 'src/a.ts' }, id: expect.stringMatching(/^toolu_/) });
    expect(msg.content[3]).toMatchObject({ id: 'given_id', input: { path: 'src/b.ts', limit: 5 } });
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage).toMatchObject({ input_tokens: 472, output_tokens: 89 });
  });

  it('maps stop reasons, answers non-stream requests, count_tokens and x-api-key', async () => {
    fake.enqueue({ text: 'cut', stopReason: 'length' });
    const msg = await client.messages.create(params);
    expect(msg).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: 'cut' }] });
    const count = await client.messages.countTokens({ model: 'claude-fake', messages: params.messages });
    expect(count.input_tokens).toBeGreaterThan(0);
    const res = await fetch(`${fake.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: unknown[] }).content).toEqual([{ type: 'text', text: 'Hello from the fake server.' }]);
  });

  it.each<[string, FakeFault, number, string, string]>([
    ['rate_limit', { kind: 'rate_limit', retryAfterSeconds: 7 }, 429, 'RateLimitError', 'rate_limit_error'],
    ['overloaded', { kind: 'overloaded' }, 529, 'OverloadedError', 'overloaded_error'],
    ['server_error', { kind: 'server_error' }, 500, 'InternalServerError', 'api_error'],
    ['auth', { kind: 'auth' }, 401, 'AuthenticationError', 'authentication_error'],
    ['billing', { kind: 'billing' }, 402, 'PaymentRequiredError', 'billing_error'],
    ['context_overflow', { kind: 'context_overflow' }, 400, 'BadRequestError', 'invalid_request_error'],
    ['not_found', { kind: 'not_found' }, 404, 'NotFoundError', 'not_found_error'],
  ])('HTTP fault %s → %s status, SDK class and error type', async (_n, fault, status, cls, type) => {
    fake.enqueue({ fault });
    const err = (await client.messages.create({ ...params, stream: true }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.constructor.name).toBe(cls);
    expect([err.status, err.type]).toEqual([status, type]);
    expect(err.requestID).toMatch(/^req_fake/);
    if (fault.kind === 'rate_limit') expect(err.headers?.get('retry-after')).toBe('7');
    if (fault.kind === 'context_overflow') expect(err.apiMessage).toMatch(/prompt is too long: \d+ tokens > \d+ maximum/);
  });

  it('serves an HTML 503, a reset and a header hang as the SDK expects', async () => {
    fake.enqueue({ fault: { kind: 'unavailable_html' } }, { fault: { kind: 'reset' } }, { fault: { kind: 'hang' } });
    const html = (await client.messages.create(params).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(html).toBeInstanceOf(Anthropic.ServiceUnavailableError);
    expect(html.message).toMatch(/^503 <html>/);
    const reset = await client.messages.create(params).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(((reset as Error).cause as Error).message).toBe('fetch failed');
    const hang = await client.messages.create(params, { timeout: 150 }).catch((e: unknown) => e);
    expect(hang).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('drop mid-stream → TypeError terminated after the partial events; helper → Error terminated', async () => {
    fake.enqueue({ text: 'partial text here', fault: { kind: 'drop', afterEvents: 4 } });
    const { items, error } = await collect(await client.messages.create({ ...params, stream: true }));
    expect(items.map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']); // ping skipped
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('terminated');
    fake.enqueue({ text: 'partial text here', fault: { kind: 'drop', afterEvents: 4 } });
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow('terminated');
  });

  it('eof without message_stop → silent end in raw iteration; the helper rejects', async () => {
    fake.enqueue({ text: 'truncated', fault: { kind: 'eof', afterEvents: 5 } });
    const { items, error } = await collect(await client.messages.create({ ...params, stream: true }));
    expect(error).toBeUndefined();
    expect(items.map((e) => e.type)).not.toContain('message_stop');
    expect(items.length).toBe(4);
    fake.enqueue({ text: 'truncated', fault: { kind: 'eof', afterEvents: 3 } });
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow(/stream ended without producing a Message/);
  });

  it('stream_error → APIError without status carrying the error type; stall → silence until closed', async () => {
    fake.enqueue({ text: 'abc', fault: { kind: 'stream_error', afterEvents: 4 } });
    const { items, error } = await collect(await client.messages.create({ ...params, stream: true }));
    expect(items.length).toBe(3);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status: undefined, type: 'overloaded_error', apiMessage: 'Overloaded' });
    fake.enqueue({ text: 'abc', fault: { kind: 'stall', afterEvents: 3 } });
    const stalled = await untilQuiet(await client.messages.create({ ...params, stream: true }), 200);
    expect(stalled).toMatchObject({ quiet: true });
    expect(stalled.items.map((e) => e.type)).toEqual(['message_start', 'content_block_start']);
  });

  it('toolLoopScenario asks for the tool, then answers from the tool result', async () => {
    fake.enqueue(toolLoopScenario({ toolName: 'read', args: { path: 'x' }, finalText: (r) => `got ${r}`, thinking: 'plan' }));
    const first = await client.messages.stream(params).finalMessage();
    const call = first.content.find((b) => b.type === 'tool_use')!;
    expect(call).toMatchObject({ name: 'read', input: { path: 'x' } });
    fake.enqueue(toolLoopScenario({ toolName: 'read', args: { path: 'x' }, finalText: (r) => `got ${r}` }));
    const second = await client.messages.stream({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content: first.content.filter((b) => b.type === 'tool_use') },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.type === 'tool_use' ? call.id : '', content: 'FILE BODY' }] },
      ],
    }).finalMessage();
    expect(second.content).toEqual([{ type: 'text', text: 'got FILE BODY' }]);
  });
});

describe('fake OpenAI server with openai', () => {
  let fake: FakeProvider;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ baseURL: fake.baseUrl, apiKey: KEY, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  const params = { model: 'gpt-fake', messages: [{ role: 'user' as const, content: 'hi' }] };
  const streamParams = { ...params, stream: true as const, stream_options: { include_usage: true } };

  it('streams role, reasoning, text, two tool calls, the usage chunk and [DONE]', async () => {
    fake.enqueue(RICH);
    const { data: stream, response } = await client.chat.completions.create(streamParams).withResponse();
    expect(response.headers.get('x-request-id')).toMatch(/^req_fake/);
    const { items, error } = await collect(stream);
    expect(error).toBeUndefined();
    expect(items[0]!.choices[0]!.delta.role).toBe('assistant');
    const deltas = items.flatMap((c) => c.choices.map((ch) => ch.delta as Record<string, unknown>));
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe(RICH.thinking);
    expect(deltas.map((d) => d.content ?? '').join('')).toBe(RICH.text);
    const calls = items.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    const firsts = calls.filter((c) => c.id !== undefined);
    expect(firsts).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'read', arguments: '' } },
      { index: 1, id: 'given_id', type: 'function', function: { name: 'read', arguments: '' } },
    ]);
    const argsOf = (i: number) => calls.filter((c) => c.index === i).map((c) => c.function?.arguments ?? '').join('');
    expect(JSON.parse(argsOf(1))).toEqual({ path: 'src/b.ts', limit: 5 });
    const last = items.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 472 + 2048, completion_tokens: 89, prompt_tokens_details: { cached_tokens: 2048 } });
    expect(items.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('passes the strict chat.completions.stream helper', async () => {
    fake.enqueue(RICH);
    const done = await client.chat.completions.stream(streamParams).finalChatCompletion();
    const msg = done.choices[0]!.message;
    expect(msg.content).toBe(RICH.text);
    expect(msg.tool_calls?.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : null))).toEqual([
      { path: 'src/a.ts' },
      { path: 'src/b.ts', limit: 5 },
    ]);
    expect(done.choices[0]!.finish_reason).toBe('tool_calls');
    expect(done.usage?.completion_tokens).toBe(89);
  });

  it('omits usage without include_usage, answers non-stream requests and keeps raw invalid tool JSON', async () => {
    fake.enqueue({ text: 'x' }, { text: 'plain', stopReason: 'length' }, { toolCalls: [{ name: 'read', arguments: '{"path": "a' }] });
    const { items } = await collect(await client.chat.completions.create({ ...params, stream: true }));
    expect(items.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
    const plain = await client.chat.completions.create(params);
    expect(plain.choices[0]).toMatchObject({ message: { content: 'plain' }, finish_reason: 'length' });
    const bad = await client.chat.completions.stream(streamParams).finalChatCompletion();
    expect((bad.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }).function.arguments).toBe('{"path": "a');
  });

  it.each<[string, FakeFault, number, string, string | null | undefined]>([
    ['rate_limit', { kind: 'rate_limit', retryAfterSeconds: 3 }, 429, 'RateLimitError', 'rate_limit_exceeded'],
    ['overloaded', { kind: 'overloaded' }, 503, 'InternalServerError', null],
    ['server_error', { kind: 'server_error' }, 500, 'InternalServerError', null],
    ['unavailable_html', { kind: 'unavailable_html' }, 503, 'InternalServerError', undefined],
    ['auth', { kind: 'auth' }, 401, 'AuthenticationError', 'invalid_api_key'],
    ['billing', { kind: 'billing' }, 429, 'RateLimitError', 'insufficient_quota'],
    ['context_overflow', { kind: 'context_overflow' }, 400, 'BadRequestError', 'context_length_exceeded'],
    ['not_found', { kind: 'not_found' }, 404, 'NotFoundError', 'model_not_found'],
  ])('HTTP fault %s → status, SDK class and code', async (_n, fault, status, cls, code) => {
    fake.enqueue({ fault });
    const err = (await client.chat.completions.create(streamParams).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.constructor.name).toBe(cls);
    expect([err.status, err.code]).toEqual([status, code]);
    expect(err.requestID).toMatch(/^req_fake/);
    if (fault.kind === 'rate_limit') expect(err.headers?.get('retry-after')).toBe('3');
    if (fault.kind === 'billing') expect(err.headers?.get('x-should-retry')).toBe('false');
    if (fault.kind === 'auth') expect(err.message).toContain('sk-test****6789');
  });

  it('reset → APIConnectionError; hang → APIConnectionTimeoutError', async () => {
    fake.enqueue({ fault: { kind: 'reset' } }, { fault: { kind: 'hang' } });
    expect(await client.chat.completions.create(params).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.APIConnectionError);
    const hang = await client.chat.completions.create(params, { timeout: 150 }).catch((e: unknown) => e);
    expect(hang).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('drop → TypeError terminated; eof → silent end (helper: missing finish_reason); stream_error → APIError', async () => {
    fake.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', fault: { kind: 'drop', afterEvents: 2 } });
    const dropped = await collect(await client.chat.completions.create(streamParams));
    expect(dropped.items.length).toBe(2);
    expect(dropped.error).toBeInstanceOf(TypeError);
    expect((dropped.error as Error).message).toBe('terminated');

    fake.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', fault: { kind: 'eof', afterEvents: 3 } });
    const eof = await collect(await client.chat.completions.create(streamParams));
    expect([eof.items.length, eof.error]).toEqual([3, undefined]);
    fake.enqueue({ text: 'abc', fault: { kind: 'eof', afterEvents: 2 } });
    await expect(client.chat.completions.stream(streamParams).finalChatCompletion()).rejects.toThrow(/missing finish_reason/);

    fake.enqueue({ text: 'abc', fault: { kind: 'stream_error', afterEvents: 2, errorType: 'server_error', message: 'boom' } });
    const failed = await collect(await client.chat.completions.create(streamParams));
    expect(failed.items.length).toBe(2);
    expect(failed.error).toBeInstanceOf(OpenAI.APIError);
    expect(failed.error).toMatchObject({ status: undefined, type: 'server_error', message: 'boom' });
  });

  it('stall → silence after N chunks until the server closes', async () => {
    fake.enqueue({ text: 'abc', fault: { kind: 'stall', afterEvents: 2 } });
    const stalled = await untilQuiet(await client.chat.completions.create(streamParams), 200);
    expect(stalled).toMatchObject({ quiet: true });
    expect(stalled.items.length).toBe(2);
  });

  it('queue is FIFO then falls back to the default; toolLoopScenario reads role:"tool" results', async () => {
    fake.setDefault(toolLoopScenario({ toolName: 'list', args: { path: '.' }, finalText: (r) => `saw ${r}` }));
    fake.enqueue({ text: 'one' });
    const one = await client.chat.completions.create(params);
    expect(one.choices[0]!.message.content).toBe('one');
    const ask = await client.chat.completions.stream(streamParams).finalChatCompletion();
    const call = ask.choices[0]!.message.tool_calls![0]!;
    expect(call).toMatchObject({ type: 'function', function: { name: 'list', arguments: '{"path":"."}' } });
    const answer = await client.chat.completions.create({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'a.ts b.ts' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('saw a.ts b.ts');
    fake.setDefault({ text: 'Hello from the fake server.' });
  });
});
