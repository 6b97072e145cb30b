import { describe, expect, it } from 'vitest';
import type { Message } from '../../main/engine/messages.js';
import { emptyUsage } from '../../main/engine/messages.js';
import {
  mapAnthropicStopReason,
  mergeAnthropicUsage,
  sanitizeToolId,
  thinkingParams,
  toAnthropicMessages,
  toAnthropicParams,
} from '../../main/providers/anthropic-convert.js';
import type { ModelDef, StreamRequest } from '../../main/providers/types.js';

const model: ModelDef = { provider: 'anthropic', id: 'claude-x', api: 'anthropic', contextWindow: 200_000, maxTokens: 8192, reasoning: true };
const usage = emptyUsage();

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['refusal', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'toolUse'],
    [null, 'stop'],
    ['something_new', 'stop'],
  ])('%s → %s', (reason, expected) => {
    expect(mapAnthropicStopReason(reason)).toBe(expected);
  });
});

describe('thinkingParams (E21)', () => {
  it.each([
    ['off', true, 8192, 8192, undefined],
    ['minimal', true, 8192, 8192, 1024],
    ['low', true, 8192, 8192, 2048],
    ['medium', true, 8192, 8192 + 4096, 8192], // budget equals maxTokens → raised above it
    ['high', true, 8192, 16384 + 4096, 16384],
    ['high', false, 8192, 8192, undefined], // model without reasoning: never a thinking param
    ['medium', true, 32000, 32000, 8192],
  ] as const)('%s (reasoning=%s, maxTokens=%d) → max_tokens %d, budget %s', (level, reasoning, maxTokens, expMax, budget) => {
    const p = thinkingParams({ ...model, reasoning, maxTokens }, level);
    if (budget === undefined) {
      expect(p).toEqual({ max_tokens: expMax });
    } else {
      expect(p.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
      expect(p.max_tokens).toBeGreaterThan(budget);
      expect(p.max_tokens).toBe(expMax);
    }
  });
});

describe('mergeAnthropicUsage', () => {
  it('takes message_start counters and overwrites output from message_delta', () => {
    const start = mergeAnthropicUsage(usage, { input_tokens: 472, cache_creation_input_tokens: 1024, cache_read_input_tokens: 2048, output_tokens: 1 });
    expect(start).toEqual({ input: 472, cacheWrite: 1024, cacheRead: 2048, output: 1, total: 472 + 1024 + 2048 + 1 });
    const end = mergeAnthropicUsage(start, { output_tokens: 89, input_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null });
    expect(end).toEqual({ input: 472, cacheWrite: 1024, cacheRead: 2048, output: 89, total: 472 + 1024 + 2048 + 89 });
  });
});

describe('sanitizeToolId', () => {
  it.each([
    ['toolu_01A', 'toolu_01A'],
    ['call_1|fc_2', 'call_1_fc_2'],
    ['a.b:c', 'a_b_c'],
    ['', 'tool'],
  ])('%s → %s', (id, expected) => expect(sanitizeToolId(id)).toBe(expected));
});

describe('toAnthropicMessages', () => {
  const ts = 0;
  const assistant = (content: Extract<Message, { role: 'assistant' }>['content']): Message => ({
    role: 'assistant', content, provider: 'anthropic', model: 'claude-x', api: 'anthropic', usage, stopReason: 'toolUse', timestamp: ts,
  });

  it('converts a tool loop with thinking, redacted thinking and parallel tool results', () => {
    const messages: Message[] = [
      { role: 'user', content: 'read both', timestamp: ts },
      assistant([
        { type: 'thinking', thinking: 'plan', signature: 'SIG==' },
        { type: 'thinking', thinking: '', redacted: 'OPAQUE' },
        { type: 'thinking', thinking: 'unsigned (from another provider)' },
        { type: 'text', text: '' },
        { type: 'text', text: 'Reading.' },
        { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { path: 'a' } },
        { type: 'toolCall', id: 'call|2', name: 'read', arguments: { path: 'b' } },
      ]),
      { role: 'toolResult', toolCallId: 'toolu_1', toolName: 'read', content: 'A', isError: false, timestamp: ts },
      { role: 'toolResult', toolCallId: 'call|2', toolName: 'read', content: 'ENOENT', isError: true, timestamp: ts },
      { role: 'user', content: 'and then?', timestamp: ts },
    ];
    expect(toAnthropicMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'SIG==' },
          { type: 'redacted_thinking', data: 'OPAQUE' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A', is_error: false },
          { type: 'tool_result', tool_use_id: 'call_2', content: 'ENOENT', is_error: true },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
  });

  it('drops an assistant turn that has nothing sendable and an empty tool result gets a placeholder', () => {
    const out = toAnthropicMessages([
      { role: 'user', content: 'hi', timestamp: ts },
      assistant([{ type: 'text', text: '  ' }]),
      { role: 'user', content: 'again', timestamp: ts },
      assistant([{ type: 'toolCall', id: 't1', name: 'list', arguments: {} }]),
      { role: 'toolResult', toolCallId: 't1', toolName: 'list', content: '', isError: false, timestamp: ts },
    ]);
    expect(out).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'again' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'list', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '(no output)', is_error: false }] },
    ]);
  });
});

describe('toAnthropicParams', () => {
  const req = (over: Partial<StreamRequest>): StreamRequest => ({
    model, apiKey: 'k', systemPrompt: 'You are a coding agent.', messages: [{ role: 'user', content: 'hi', timestamp: 0 }],
    tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
    thinking: 'off', signal: new AbortController().signal, idleTimeoutMs: 1000, ...over,
  });

  it('sends the system prompt as a cached text block and tools with input_schema', () => {
    const p = toAnthropicParams(req({}));
    expect(p.system).toEqual([{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }]);
    expect(p.tools).toEqual([{ name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }]);
    expect(p.stream).toBe(true);
    expect(p.max_tokens).toBe(8192);
    expect(p.thinking).toBeUndefined();
  });

  it('omits empty system and tools and adds thinking when asked', () => {
    const p = toAnthropicParams(req({ systemPrompt: '', tools: [], thinking: 'low' }));
    expect(p).not.toHaveProperty('system');
    expect(p).not.toHaveProperty('tools');
    expect(p.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });
});
