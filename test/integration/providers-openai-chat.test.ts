/** OpenAI Chat-specific wire details through the real SDK against the fake server: request body and usage. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsage, type AssistantMessage, type Message } from '../../main/engine/messages.js';
import { streamOpenAIChat } from '../../main/providers/openai-chat.js';
import type { ModelDef, StreamRequest } from '../../main/providers/types.js';
import { baseRequest, runStream, type StreamRun } from '../support/provider-stream.js';
import { startFakeOpenAI, type FakeProvider } from '../fake/index.js';

let fake: FakeProvider;
let model: ModelDef;

const run = (req: StreamRequest): Promise<StreamRun> => runStream(streamOpenAIChat, req);
const base = (over: Partial<StreamRequest> = {}): StreamRequest => baseRequest(model, 'sk-openai-test', over);

beforeAll(async () => {
  fake = await startFakeOpenAI();
  model = { provider: 'openai', id: 'gpt-fake-1', api: 'openai-chat', baseUrl: fake.baseUrl, contextWindow: 128_000, maxTokens: 4096, reasoning: true };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('streamOpenAIChat request', () => {
  it('sends system, user, assistant tool calls as JSON strings, tool results, tools and stream options', async () => {
    const prior: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'private reasoning' },
        { type: 'text', text: 'Reading.' },
        { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a.ts' } },
        { type: 'toolCall', id: 'call_2', name: 'read', arguments: { path: 'b.ts' } },
      ],
      provider: 'openai', model: 'gpt-fake-1', api: 'openai-chat', usage: emptyUsage(), stopReason: 'toolUse', timestamp: 0,
    };
    const messages: Message[] = [
      { role: 'user', content: 'read a.ts and b.ts', timestamp: 0 },
      prior,
      { role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content: 'export const a = 1;', isError: false, timestamp: 0 },
      { role: 'toolResult', toolCallId: 'call_2', toolName: 'read', content: 'read: "b.ts" does not exist', isError: true, timestamp: 0 },
    ];
    const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
    fake.enqueue({ text: 'done' });
    const { last } = await run(base({ messages, tools, thinking: 'high' }));
    expect(last.type).toBe('done');

    const { path, headers, body } = fake.requests[0]!;
    expect(path).toBe('/v1/chat/completions');
    expect(headers.authorization).toBe('Bearer sk-openai-test');
    expect(headers['x-stainless-retry-count']).toBe('0');
    expect(body).toMatchObject({
      model: 'gpt-fake-1',
      stream: true,
      stream_options: { include_usage: true },
      tool_choice: 'auto',
      max_completion_tokens: 4096,
      reasoning_effort: 'high',
    });
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'read', description: 'Read a file', parameters: tools[0]!.parameters } }]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'read a.ts and b.ts' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
          { id: 'call_2', type: 'function', function: { name: 'read', arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
      { role: 'tool', tool_call_id: 'call_2', content: 'read: "b.ts" does not exist' },
    ]);
  });

  it('sends no reasoning_effort when thinking is off or the model does not reason', async () => {
    fake.enqueue({ text: 'a' }, { text: 'b' });
    await run(base({ thinking: 'off' }));
    await run(base({ thinking: 'medium', model: { ...model, reasoning: false } }));
    for (const r of fake.requests) expect(r.body).not.toHaveProperty('reasoning_effort');
  });
});

describe('streamOpenAIChat response', () => {
  it('maps usage from the final choices:[] chunk (cached tokens split out of prompt_tokens)', async () => {
    fake.enqueue({ text: 'Hello.', usage: { input: 176, cacheRead: 1024, output: 80 } });
    const { message, last } = await run(base());
    expect(last.type).toBe('done');
    expect(message.usage).toEqual({ input: 176, cacheRead: 1024, cacheWrite: 0, output: 80, total: 1280 });
  });

  it('reads reasoning_content as thinking, not text', async () => {
    fake.enqueue({ thinking: 'Step one. Step two.', text: 'Result.' });
    const { message } = await run(base({ thinking: 'low' }));
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Step one. Step two.' },
      { type: 'text', text: 'Result.' },
    ]);
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['toolUse', 'toolUse'],
  ] as const)('maps fake finish %s to %s', async (fakeStop, expected) => {
    fake.enqueue({ text: 'x', stopReason: fakeStop });
    const { last } = await run(base());
    expect(last).toMatchObject({ type: 'done', stopReason: expected });
  });
});
