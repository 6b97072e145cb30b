import { describe, expect, it } from 'vitest';
import { storedErrorLine, toHistory } from '../../main/gateway/history.js';
import type { AssistantMessage } from '../../main/engine/messages.js';

describe('storedErrorLine: the same error wording after a reload as live', () => {
  it.each([
    ['anthropic', 'error', '401 invalid x-api-key (authentication_error)', 'Anthropic rejected the API key (401): invalid x-api-key'],
    ['openai-chat', 'error', '429 Rate limit reached for requests', 'OpenAI rate limit reached (429): Rate limit reached for requests'],
    ['anthropic', 'error', 'Anthropic rate limit reached (429): slow down', 'Anthropic rate limit reached (429): slow down'],
    ['anthropic', 'aborted', 'The run was stopped.', 'The run was stopped.'],
    ['anthropic', 'error', 'something nobody classifies', 'something nobody classifies'],
    ['anthropic', 'error', undefined, undefined],
  ])('%s %s %j → %j', (api, stop, raw, line) => {
    expect(storedErrorLine(api, stop, raw)).toBe(line);
  });
});

describe('toHistory: each reply carries what its call was billed (the prices runs bill with)', () => {
  const call = (model: string, input: number, output: number): AssistantMessage => ({
    role: 'assistant',
    content: [{ type: 'text', text: 'ok' }],
    provider: 'p',
    model,
    api: 'anthropic',
    usage: { input, output, cacheRead: 0, cacheWrite: 0, total: input + output },
    stopReason: 'stop',
    timestamp: 1,
  });
  const priceOf = (ref: string) => (ref === 'p/priced' ? { input: 3, output: 15 } : undefined);
  it.each([
    ['a priced model', call('priced', 1_000_000, 100_000), 4.5],
    ['an unpriced model', call('other', 1000, 10), undefined],
  ])('%s', (_what, m, cost) => {
    const [entry] = toHistory([m], [], priceOf);
    expect(entry).toMatchObject({ role: 'assistant', usage: { input: m.usage.input, output: m.usage.output } });
    expect((entry as { cost?: number }).cost).toBe(cost);
  });
  it('no prices given: no cost', () => {
    expect(toHistory([call('priced', 10, 10)])[0]).not.toHaveProperty('cost');
  });
});
