/** The summary request: rendering, splitting to fit, and halving a part the provider still rejects (no death spiral). */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef } from '../../main/providers/types.js';
import { generateSummary, renderMessage, splitForSummary, SUMMARY_SYSTEM_PROMPT } from '../../main/engine/attempt/summary.js';
import { estimateTokens } from '../../main/engine/attempt/tokens.js';
import { scriptedStream } from '../support/scripted-stream.js';

const model: ModelDef = { provider: 'test', id: 'm', api: 'anthropic', contextWindow: 200_000, maxTokens: 1000, reasoning: false };

describe('renderMessage', () => {
  it.each<[string, Message, string]>([
    ['user', { role: 'user', content: 'hi', timestamp: 1 }, 'User: hi'],
    ['tool error', { role: 'toolResult', toolCallId: 'c', toolName: 'exec', content: 'boom', isError: true, timestamp: 1 }, 'Tool result (exec, error): boom'],
    [
      'assistant text + call',
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'hidden' }, { type: 'text', text: 'Reading.' }, { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'a' } }],
        provider: 'p', model: 'm', api: 'a', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: 'toolUse', timestamp: 1,
      },
      'Assistant: Reading.\nAssistant called read({"path":"a"})',
    ],
  ])('%s', (_n, m, text) => {
    expect(renderMessage(m)).toBe(text);
  });

  it('cuts long tool results', () => {
    const text = renderMessage({ role: 'toolResult', toolCallId: 'c', toolName: 'read', content: 'x'.repeat(50_000), isError: false, timestamp: 1 });
    expect(text.length).toBeLessThan(2_200);
  });
});

describe('splitForSummary', () => {
  it.each([
    [['a b c', 'd e f'], 1000, 1],
    // 'abcd ' is 0.8 tokens: each message is 200 tokens (+2 framing).
    [Array.from({ length: 10 }, () => 'abcd '.repeat(250)), 250, 10],
    [Array.from({ length: 10 }, () => 'abcd '.repeat(250)), 500, 5],
    [Array.from({ length: 10 }, () => 'abcd '.repeat(250)), 1100, 2],
  ])('%#: parts stay under the limit', (rendered, limit, parts) => {
    const out = splitForSummary(rendered, limit);
    expect(out).toHaveLength(parts);
    for (const p of out) expect(estimateTokens(p)).toBeLessThanOrEqual(limit);
    expect(out.join('\n\n')).toBe(rendered.join('\n\n'));
  });

  it('cuts a single message larger than a part', () => {
    const out = splitForSummary(['word '.repeat(5_000)], 500);
    expect(out).toHaveLength(1);
    expect(estimateTokens(out[0]!)).toBeLessThanOrEqual(600);
  });
});

describe('generateSummary', () => {
  const deps = (turns: Parameters<typeof scriptedStream>[0]) => {
    const streamFn = scriptedStream(turns);
    return { streamFn, deps: { streamFn, model, apiKey: 'k', signal: new AbortController().signal, idleTimeoutMs: 1000, now: () => 1 } };
  };
  const messages: Message[] = Array.from({ length: 8 }, (_, i) => ({ role: 'user', content: `turn ${i} `.repeat(300), timestamp: 1 }));

  it('asks the model with the summary prompt and returns its text', async () => {
    const { streamFn, deps: d } = deps([{ text: ['The ', 'summary.'] }]);
    expect(await generateSummary(d, { messages, windowTokens: 200_000, previousSummary: 'before' })).toBe('The summary.');
    expect(streamFn.requests[0]!.systemPrompt).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(streamFn.requests[0]!.messages[0]!.content).toContain('<previous-summary>\nbefore\n</previous-summary>');
  });

  it('halves the parts when the provider still says the request is too long, and stops after 3 halvings', async () => {
    const overflow = () => ({ error: new Error('400 prompt is too long: 9000 tokens > 8000 maximum') });
    const { streamFn, deps: d } = deps([overflow(), { text: ['s1'] }, { text: ['s2'] }]);
    expect(await generateSummary(d, { messages, windowTokens: 12_000 })).toBe('s2');
    expect(streamFn.requests.length).toBe(3); // one part rejected, then two halves
    const { deps: d2 } = deps([overflow(), overflow(), overflow(), overflow(), overflow(), overflow(), overflow(), overflow()]);
    await expect(generateSummary(d2, { messages, windowTokens: 12_000 })).rejects.toThrow(/prompt is too long/);
  });

  it('other errors are not retried', async () => {
    const { streamFn, deps: d } = deps([{ error: new Error('401 invalid x-api-key') }]);
    await expect(generateSummary(d, { messages, windowTokens: 200_000 })).rejects.toThrow(/401/);
    expect(streamFn.requests).toHaveLength(1);
  });

  it('an empty summary is an error', async () => {
    const { deps: d } = deps([{ text: ['  '] }]);
    await expect(generateSummary(d, { messages, windowTokens: 200_000 })).rejects.toThrow(/empty summary/);
  });
});
