/**
 * OpenAI Responses-specific wire details through the real SDK against the fake server: the request body,
 * reasoning items carried into the next request, every function call answered, stop reasons, in-stream failures
 * and their classification (E8). The shared StreamFn contract is in providers-common.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyError, type FailoverReason } from '../../main/engine/classify.js';
import { emptyUsage, toolCallsOf, type AssistantMessage, type Message } from '../../main/engine/messages.js';
import { streamOpenAIResponses } from '../../main/providers/openai-responses.js';
import type { ModelDef, StreamRequest } from '../../main/providers/types.js';
import { encryptedFor } from '../fake/openai-responses.js';
import { startFakeOpenAI, type FakeFault, type FakeProvider } from '../fake/index.js';
import { baseRequest, runStream, type StreamRun } from '../support/provider-stream.js';

let fake: FakeProvider;
let model: ModelDef;

const run = (req: StreamRequest): Promise<StreamRun> => runStream(streamOpenAIResponses, req);
const base = (over: Partial<StreamRequest> = {}): StreamRequest => baseRequest(model, 'sk-responses-test', over);
const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
const user = (content: string): Message => ({ role: 'user', content, timestamp: 0 });
const result = (id: string, content: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content, isError: false, timestamp: 0 });

beforeAll(async () => {
  fake = await startFakeOpenAI();
  model = { provider: 'oai', id: 'o4-mini', api: 'openai-responses', baseUrl: fake.baseUrl, contextWindow: 200_000, maxTokens: 4096, reasoning: true };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('streamOpenAIResponses request', () => {
  it('posts /v1/responses statelessly: instructions, input items, flat tools, effort, encrypted reasoning', async () => {
    fake.enqueue({ text: 'done' });
    const { last } = await run(base({ tools, thinking: 'high', messages: [user('read a.ts')] }));
    expect(last.type).toBe('done');
    const { path, headers, body } = fake.requests[0]!;
    expect(path).toBe('/v1/responses');
    expect(headers.authorization).toBe('Bearer sk-responses-test');
    expect(headers['x-stainless-retry-count']).toBe('0');
    expect(body).toEqual({
      model: 'o4-mini',
      instructions: 'You are a coding agent.',
      input: [{ role: 'user', content: 'read a.ts' }],
      stream: true,
      store: false,
      max_output_tokens: 4096,
      tools: [{ type: 'function', name: 'read', description: 'Read a file', parameters: tools[0]!.parameters, strict: false }],
      tool_choice: 'auto',
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
  });

  it.each([
    ['o4-mini', 'minimal', true, 'low'],
    ['gpt-5', 'minimal', true, 'minimal'],
    ['gpt-5.1', 'minimal', true, 'low'],
    ['o4-mini', 'medium', true, 'medium'],
    ['o4-mini', 'off', true, undefined],
    ['gpt-4.1', 'high', false, undefined],
  ] as const)('%s at thinking %s (reasoning %s) sends effort %s', async (id, thinking, reasoning, effort) => {
    fake.enqueue({ text: 'ok' });
    await run(base({ thinking, model: { ...model, id, reasoning } }));
    expect(fake.requests[0]!.body.reasoning?.effort).toBe(effort);
    expect('include' in fake.requests[0]!.body).toBe(effort !== undefined);
  });
});

describe('a tool call round-trip carries the reasoning item and answers every call', () => {
  it('sends the reasoning item back with its unmodified encrypted content, then the call and its output', async () => {
    fake.enqueue({ thinking: 'I should read the file.', text: 'Reading.', toolCalls: [{ name: 'read', arguments: { path: 'a.ts' } }] });
    const first = await run(base({ tools, thinking: 'low', messages: [user('read a.ts')] }));
    expect(first.last).toMatchObject({ type: 'done', stopReason: 'toolUse' });
    const [thinking, text, call] = first.message.content;
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'I should read the file.', itemId: expect.stringMatching(/^rs_/) });
    const rsId = (thinking as { itemId: string }).itemId;
    expect(thinking).toMatchObject({ encrypted: encryptedFor(rsId) });
    expect(text).toMatchObject({ type: 'text', text: 'Reading.', itemId: expect.stringMatching(/^msg_/) });
    expect(call).toMatchObject({ type: 'toolCall', name: 'read', arguments: { path: 'a.ts' }, itemId: expect.stringMatching(/^fc_/) });
    const callId = toolCallsOf(first.message)[0]!.id;

    fake.enqueue({ text: 'It exports a.' });
    const second = await run(base({ tools, thinking: 'low', messages: [user('read a.ts'), first.message, result(callId, 'export const a = 1;')] }));
    expect(second.last).toMatchObject({ type: 'done', stopReason: 'stop' });
    expect(fake.requests[1]!.body.input).toEqual([
      { role: 'user', content: 'read a.ts' },
      { type: 'reasoning', id: rsId, summary: [{ type: 'summary_text', text: 'I should read the file.' }], encrypted_content: encryptedFor(rsId) },
      { type: 'message', id: (text as { itemId: string }).itemId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Reading.', annotations: [] }] },
      { type: 'function_call', id: (call as { itemId: string }).itemId, call_id: callId, name: 'read', arguments: '{"path":"a.ts"}' },
      { type: 'function_call_output', call_id: callId, output: 'export const a = 1;' },
    ]);
  });

  it('answers a call without a result with "aborted", drops orphan outputs and another provider\'s thinking', async () => {
    const foreign: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'anthropic thoughts', signature: 'sig' },
        { type: 'text', text: 'Two reads.' },
        { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { path: 'a' } },
        { type: 'toolCall', id: 'toolu_2', name: 'read', arguments: { path: 'b' } },
      ],
      provider: 'anthropic', model: 'claude', api: 'anthropic', usage: emptyUsage(), stopReason: 'toolUse', timestamp: 0,
    };
    fake.enqueue({ text: 'ok' });
    await run(base({ messages: [user('go'), foreign, result('toolu_2', 'B'), result('nobody', 'orphan'), user('next')] }));
    expect(fake.requests[0]!.body.input).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Two reads.' },
      { type: 'function_call', call_id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'function_call', call_id: 'toolu_2', name: 'read', arguments: '{"path":"b"}' },
      { type: 'function_call_output', call_id: 'toolu_2', output: 'B' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'aborted' },
      { role: 'user', content: 'next' },
    ]);
  });
});

describe('streamOpenAIResponses response', () => {
  it('maps usage (cached tokens split out of input_tokens) and incomplete max_output_tokens → length', async () => {
    fake.enqueue({ text: 'Hello.', usage: { input: 176, cacheRead: 1024, output: 80 } }, { text: 'cut', stopReason: 'length' });
    const a = await run(base());
    expect(a.message.usage).toEqual({ input: 176, cacheRead: 1024, cacheWrite: 0, output: 80, total: 1280 });
    const b = await run(base());
    expect(b.last).toMatchObject({ type: 'done', stopReason: 'length' });
  });

  const sf = (over: Partial<Extract<FakeFault, { kind: 'stream_error' }>>): FakeFault => ({ kind: 'stream_error', afterEvents: 6, ...over });
  it.each<[string, FakeFault, FailoverReason, string | undefined]>([
    ['nested error event: context_length_exceeded', sf({ errorType: 'context_length_exceeded', message: 'Your input exceeds the context window of this model. Please adjust your input and try again.' }), 'context_overflow', 'context_length_exceeded'],
    ['nested error event: server_error', sf({}), 'server_error', 'server_error'],
    ['flat error event: rate_limit_exceeded', sf({ shape: 'flat', errorType: 'rate_limit_exceeded', message: 'Rate limit reached for o4-mini on tokens per min (TPM).' }), 'rate_limit', 'rate_limit_exceeded'],
    ['response.failed: overloaded', sf({ shape: 'failed', message: 'Our servers are currently overloaded. Please try again later.' }), 'overloaded', 'server_error'],
    ['response.failed: context_length_exceeded', sf({ shape: 'failed', errorType: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' }), 'context_overflow', 'context_length_exceeded'],
    ['HTTP 429 rate limit', { kind: 'rate_limit', retryAfterSeconds: 2 }, 'rate_limit', 'rate_limit_exceeded'],
    ['HTTP 400 overflow', { kind: 'context_overflow' }, 'context_overflow', 'context_length_exceeded'],
    ['HTTP 429 insufficient_quota', { kind: 'billing' }, 'billing', 'insufficient_quota'],
  ])('%s → one error event classified %s', async (_n, fault, reason, code) => {
    fake.enqueue({ text: 'Some partial text here.', chunkSize: 5, fault });
    const r = await run(base());
    expect(r.last.type).toBe('error');
    expect(r.events.filter((e) => e.type === 'error' || e.type === 'done')).toHaveLength(1);
    expect(r.message.stopReason).toBe('error');
    const c = classifyError((r.last as { error: unknown }).error);
    expect(c.reason).toBe(reason);
    expect(c.code).toBe(code);
    expect(c.message).not.toContain('sk-responses-test');
    expect(fake.requests).toHaveLength(1);
  });
});
