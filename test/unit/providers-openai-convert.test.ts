import { describe, expect, it } from 'vitest';
import type { Message } from '../../main/engine/messages.js';
import { emptyUsage } from '../../main/engine/messages.js';
import { mapOpenAIFinishReason, mapOpenAIUsage, openAIFinishFailure, toOpenAIMessages, toOpenAIParams } from '../../main/providers/openai-convert.js';
import { ProviderFinishError } from '../../main/providers/errors.js';
import { classifyError, type FailoverReason } from '../../main/engine/classify.js';
import type { ModelDef, StreamRequest, ThinkingLevel } from '../../main/providers/types.js';

const model: ModelDef = { provider: 'openai', id: 'gpt-x', api: 'openai-chat', contextWindow: 128_000, maxTokens: 4096, reasoning: true };

describe('mapOpenAIFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'toolUse'],
    ['function_call', 'toolUse'],
    ['content_filter', 'stop'],
    ['model_length', 'length'],
    [null, 'stop'],
  ])('%s → %s', (reason, expected) => expect(mapOpenAIFinishReason(reason)).toBe(expected));
});

describe('openAIFinishFailure (issue 21: a failed completion is not an answer)', () => {
  it.each<[string | null, string | undefined]>([
    ['stop', undefined],
    ['length', undefined],
    ['tool_calls', undefined],
    ['content_filter', undefined],
    ['eos', undefined],
    [null, undefined],
    ['error', 'Provider finish_reason: error'],
    ['network_error', 'Provider finish_reason: network_error'],
    ['abort', 'Provider finish_reason: abort'],
    ['insufficient_system_resource', 'Provider finish_reason: insufficient_system_resource'],
    ['something_new', 'Provider finish_reason: something_new'],
  ])('%s → %s', (reason, expected) => expect(openAIFinishFailure(reason)).toBe(expected));

  it.each<[string, FailoverReason]>([
    ['error', 'server_error'],
    ['network_error', 'timeout'],
    ['abort', 'timeout'],
    ['malformed_response', 'timeout'],
    ['insufficient_system_resource', 'overloaded'],
  ])('the error of finish_reason %s classifies as %s', (reason, expected) => {
    expect(classifyError(new ProviderFinishError(openAIFinishFailure(reason)!), 0).reason).toBe(expected);
  });
});

describe('mapOpenAIUsage', () => {
  it.each([
    [{ prompt_tokens: 1200, completion_tokens: 80, prompt_tokens_details: { cached_tokens: 1024 } }, { input: 176, cacheRead: 1024, cacheWrite: 0, output: 80, total: 1280 }],
    [{ prompt_tokens: 10, completion_tokens: 5 }, { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, total: 15 }],
    [{ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: null }, { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, total: 15 }],
    [{}, { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, total: 0 }],
  ])('%j', (u, expected) => expect(mapOpenAIUsage(u)).toEqual(expected));
});

describe('toOpenAIMessages', () => {
  it('converts system, user, assistant tool calls (thinking not sent) and tool results', () => {
    const messages: Message[] = [
      { role: 'user', content: 'read a', timestamp: 0 },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan' },
          { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a' } },
        ],
        provider: 'openai', model: 'gpt-x', api: 'openai-chat', usage: emptyUsage(), stopReason: 'toolUse', timestamp: 0,
      },
      { role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content: 'AAA', isError: false, timestamp: 0 },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'only thinking' }],
        provider: 'openai', model: 'gpt-x', api: 'openai-chat', usage: emptyUsage(), stopReason: 'stop', timestamp: 0,
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Done: ' }, { type: 'text', text: 'AAA' }],
        provider: 'openai', model: 'gpt-x', api: 'openai-chat', usage: emptyUsage(), stopReason: 'stop', timestamp: 0,
      },
    ];
    expect(toOpenAIMessages('SYS', messages)).toEqual([
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'read a' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'AAA' },
      { role: 'assistant', content: 'Done: AAA' },
    ]);
  });

  it('leaves out an empty system prompt', () => {
    expect(toOpenAIMessages('', [{ role: 'user', content: 'x', timestamp: 0 }])).toEqual([{ role: 'user', content: 'x' }]);
  });
});

describe('toOpenAIParams', () => {
  const req = (over: Partial<StreamRequest>): StreamRequest => ({
    model, apiKey: 'k', systemPrompt: 'S', messages: [{ role: 'user', content: 'hi', timestamp: 0 }],
    tools: [{ name: 'list', description: 'List', parameters: { type: 'object', properties: {} } }],
    thinking: 'off', signal: new AbortController().signal, idleTimeoutMs: 1000, ...over,
  });

  it('streams with usage, auto tool choice and max_completion_tokens', () => {
    const p = toOpenAIParams(req({}));
    expect(p).toMatchObject({
      model: 'gpt-x', stream: true, stream_options: { include_usage: true }, tool_choice: 'auto', max_completion_tokens: 4096,
      tools: [{ type: 'function', function: { name: 'list', description: 'List', parameters: { type: 'object', properties: {} } } }],
    });
    expect(p).not.toHaveProperty('reasoning_effort');
  });

  it('sends neither tools nor tool_choice without tools', () => {
    const p = toOpenAIParams(req({ tools: [] }));
    expect(p).not.toHaveProperty('tools');
    expect(p).not.toHaveProperty('tool_choice');
  });

  it.each([
    ['off', true, undefined],
    ['minimal', true, 'minimal'],
    ['low', true, 'low'],
    ['medium', true, 'medium'],
    ['high', true, 'high'],
    ['high', false, undefined],
  ] as const)('thinking %s (reasoning=%s) → reasoning_effort %s', (thinking: ThinkingLevel, reasoning, effort) => {
    const p = toOpenAIParams(req({ thinking, model: { ...model, reasoning } }));
    expect(p.reasoning_effort).toBe(effort);
  });
});
