/** Anthropic-specific wire details through the real SDK against the fake server: request body, usage, signatures. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsage, type AssistantMessage, type Message } from '../../main/engine/messages.js';
import { streamAnthropic } from '../../main/providers/anthropic.js';
import type { ModelDef, StreamRequest } from '../../main/providers/types.js';
import { baseRequest, runStream, type StreamRun } from '../support/provider-stream.js';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';

let fake: FakeProvider;
let model: ModelDef;

const run = (req: StreamRequest): Promise<StreamRun> => runStream(streamAnthropic, req);
const base = (over: Partial<StreamRequest> = {}): StreamRequest => baseRequest(model, 'sk-ant-test', over);

beforeAll(async () => {
  fake = await startFakeAnthropic();
  model = { provider: 'anthropic', id: 'claude-fake-1', api: 'anthropic', baseUrl: fake.baseUrl, contextWindow: 200_000, maxTokens: 8192, reasoning: true };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('streamAnthropic request', () => {
  it('sends system (cached), tools, converted history, thinking and auth', async () => {
    const prior: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should read both.', signature: 'EqQBCkgSIGNATURE==' },
        { type: 'thinking', thinking: '', redacted: 'EmwKAhgBREDACTED' },
        { type: 'text', text: 'Reading both files.' },
        { type: 'toolCall', id: 'toolu_01A', name: 'read', arguments: { path: 'a.ts' } },
        { type: 'toolCall', id: 'toolu_01B', name: 'read', arguments: { path: 'b.ts' } },
      ],
      provider: 'anthropic', model: 'claude-fake-1', api: 'anthropic', usage: emptyUsage(), stopReason: 'toolUse', timestamp: 0,
    };
    const messages: Message[] = [
      { role: 'user', content: 'read a.ts and b.ts', timestamp: 0 },
      prior,
      { role: 'toolResult', toolCallId: 'toolu_01A', toolName: 'read', content: 'export const a = 1;', isError: false, timestamp: 0 },
      { role: 'toolResult', toolCallId: 'toolu_01B', toolName: 'read', content: 'read: "b.ts" does not exist', isError: true, timestamp: 0 },
    ];
    const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
    fake.enqueue({ text: 'a.ts exports a; b.ts is missing.' });
    const { last } = await run(base({ messages, tools, thinking: 'medium' }));
    expect(last.type).toBe('done');

    const { path, headers, body } = fake.requests[0]!;
    expect(path).toBe('/v1/messages');
    expect(headers.authorization).toBe('Bearer sk-ant-test');
    expect(headers['anthropic-version']).toBeTruthy();
    expect(headers['x-stainless-retry-count']).toBe('0');
    // medium = 8192 budget, which is not below maxTokens 8192: max_tokens is raised above it
    expect(body).toMatchObject({ model: 'claude-fake-1', stream: true, max_tokens: 8192 + 4096 });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(body.system).toEqual([{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }]);
    expect(body.tools).toEqual([{ name: 'read', description: 'Read a file', input_schema: tools[0]!.parameters }]);
    expect(body).not.toHaveProperty('tool_choice');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read a.ts and b.ts' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read both.', signature: 'EqQBCkgSIGNATURE==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBREDACTED' },
          { type: 'text', text: 'Reading both files.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'read', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'read', input: { path: 'b.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'export const a = 1;', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: 'read: "b.ts" does not exist', is_error: true },
        ],
      },
    ]);
  });

  it('raises max_tokens above the thinking budget and sends no thinking when off', async () => {
    fake.enqueue({ text: 'ok' }, { text: 'ok' });
    await run(base({ thinking: 'high' }));
    await run(base({ thinking: 'off' }));
    const [high, off] = fake.requests.map((r) => r.body);
    expect(high.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(high.max_tokens).toBeGreaterThan(16384);
    expect(off).not.toHaveProperty('thinking');
    expect(off.max_tokens).toBe(8192);
  });
});

describe('streamAnthropic response', () => {
  it('maps usage: input, cache read/write, cumulative output, total', async () => {
    fake.enqueue({ text: 'Hello.', usage: { input: 472, output: 89, cacheRead: 2048, cacheWrite: 1024 } });
    const { events, message } = await run(base());
    expect(message.usage).toEqual({ input: 472, output: 89, cacheRead: 2048, cacheWrite: 1024, total: 472 + 89 + 2048 + 1024 });
    const usages = events.filter((e) => e.type === 'usage').map((e) => (e as { usage: { output: number } }).usage.output);
    expect(usages).toEqual([1, 89]); // message_start, then message_delta overwrites
  });

  it('keeps the thinking signature and sends it back unmodified next turn', async () => {
    fake.enqueue({ thinking: 'Deliberating carefully.', text: 'Answer.' }, { text: 'Second.' });
    const first = await run(base({ thinking: 'low' }));
    const thinking = first.message.content[0]!;
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'Deliberating carefully.', signature: expect.stringMatching(/^EqQB/) });
    await run(base({ thinking: 'low', messages: [{ role: 'user', content: 'hi', timestamp: 0 }, first.message, { role: 'user', content: 'more', timestamp: 0 }] }));
    const sent = fake.requests[1]!.body.messages[1].content[0];
    expect(sent).toEqual({ type: 'thinking', thinking: 'Deliberating carefully.', signature: (thinking as { signature: string }).signature });
  });

  it('exposes the mid-stream error type on the SDK error', async () => {
    fake.enqueue({ text: 'abc def ghi', chunkSize: 3, fault: { kind: 'stream_error', afterEvents: 4, errorType: 'overloaded_error', message: 'Overloaded' } });
    const { last, message } = await run(base());
    if (last.type !== 'error') throw new Error('expected error');
    expect((last.error as { type?: string }).type).toBe('overloaded_error');
    expect(message.errorMessage).toBe('Overloaded (overloaded_error)');
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['toolUse', 'toolUse'],
  ] as const)('maps fake stop reason %s to %s', async (fakeStop, expected) => {
    fake.enqueue({ text: 'x', stopReason: fakeStop });
    const { last } = await run(base());
    expect(last).toMatchObject({ type: 'done', stopReason: expected });
  });
});
