/** E21 thinking levels: per-model OpenAI effort, the level order, rejection detection and the one-lower retry. */
import { describe, expect, it } from 'vitest';
import { isThinkingLevelRejected } from '../../main/engine/classify.js';
import { emptyUsage } from '../../main/engine/messages.js';
import { lowerThinkingLevel, openAIEffort } from '../../main/providers/thinking.js';
import { withThinkingFallback } from '../../main/providers/thinking-fallback.js';
import type { ModelDef, ProviderEvent, StreamRequest, ThinkingLevel } from '../../main/providers/types.js';

describe('openAIEffort', () => {
  it.each([
    ['o4-mini', true, 'minimal', 'low'],
    ['o3', true, 'minimal', 'low'],
    ['gpt-5.1', true, 'minimal', 'low'],
    ['gpt-5.2-codex', true, 'minimal', 'low'],
    ['gpt-5', true, 'minimal', 'minimal'],
    ['gpt-5-mini', true, 'minimal', 'minimal'],
    ['gpt-5-nano-2025-08-07', true, 'minimal', 'minimal'],
    ['qwen3:8b', true, 'minimal', 'minimal'], // unknown (compat) models get the level as asked
    ['o4-mini', true, 'high', 'high'],
    ['o4-mini', true, 'off', undefined],
    ['gpt-4o', false, 'high', undefined],
  ] as const)('%s (reasoning %s) at %s → %s', (id, reasoning, level, effort) => {
    expect(openAIEffort({ id, reasoning }, level)).toBe(effort);
  });
});

describe('lowerThinkingLevel', () => {
  it.each([
    ['high', 'medium'],
    ['medium', 'low'],
    ['low', 'minimal'],
    ['minimal', 'off'],
    ['off', 'off'],
  ] as const)('%s → %s', (from, to) => expect(lowerThinkingLevel(from)).toBe(to));
});

const apiError = (status: number, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${status} ${message}`), { status, error: { message, ...extra }, ...extra });

describe('isThinkingLevelRejected', () => {
  it.each([
    ['OpenAI minimal unsupported', apiError(400, "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported values are: 'low', 'medium', and 'high'.", { code: 'unsupported_value', param: 'reasoning_effort', type: 'invalid_request_error' }), true],
    ['Responses reasoning.effort', apiError(400, "Unsupported value: 'reasoning.effort' does not support 'minimal' with this model.", { code: 'unsupported_value', param: 'reasoning.effort' }), true],
    ['OpenAI param unsupported on model', apiError(400, "Unsupported parameter: 'reasoning_effort' is not supported with this model.", { code: 'unsupported_parameter' }), true],
    ['Anthropic model without thinking', apiError(400, "'claude-3-5-haiku-20241022' does not support thinking.", { type: 'invalid_request_error' }), true],
    ['Anthropic budget too large', apiError(400, 'thinking.budget_tokens: Input should be greater than or equal to 1024', { type: 'invalid_request_error' }), true],
    ['overflow is not a thinking rejection', apiError(400, "This model's maximum context length is 128000 tokens.", { code: 'context_length_exceeded' }), false],
    ['other 400', apiError(400, 'messages.1: tool_use ids were found without tool_result blocks'), false],
    ['429 mentioning reasoning', apiError(429, 'Rate limit reached for reasoning tokens; value not supported'), false],
    ['500', apiError(500, 'thinking is not supported right now'), false],
    ['not an HTTP error', new Error('reasoning_effort not supported'), false],
  ])('%s → %s', (_n, err, expected) => expect(isThinkingLevelRejected(err)).toBe(expected));
});

const model: ModelDef = { provider: 'p', id: 'm', api: 'openai-chat', contextWindow: 1000, maxTokens: 100, reasoning: true };
const req = (thinking: ThinkingLevel): StreamRequest => ({
  model, apiKey: 'k', systemPrompt: '', messages: [], tools: [], thinking, signal: new AbortController().signal, idleTimeoutMs: 1000,
});
const msg = (stopReason: 'stop' | 'error') => ({
  role: 'assistant' as const, content: [], provider: 'p', model: 'm', api: 'openai-chat', usage: emptyUsage(), stopReason, timestamp: 0,
});
const REJECT = apiError(400, "Unsupported value: 'reasoning_effort' does not support 'high' with this model.", { param: 'reasoning_effort' });

/** A StreamFn that fails with `errors[i]` on call i (before any event), then succeeds; records the levels. */
function failing(errors: unknown[]) {
  const levels: ThinkingLevel[] = [];
  const fn = async function* (r: StreamRequest): AsyncGenerator<ProviderEvent> {
    const err = errors[levels.length];
    levels.push(r.thinking);
    if (err !== undefined) {
      yield { type: 'error', error: err, message: msg('error') };
      return;
    }
    yield { type: 'message_start' };
    yield { type: 'text_delta', index: 0, delta: `at ${r.thinking}` };
    yield { type: 'done', stopReason: 'stop', message: msg('stop') };
  };
  return { fn, levels };
}

async function collect(it: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('withThinkingFallback', () => {
  it('retries a rejected level once, one level lower; the rejected call is not seen', async () => {
    const s = failing([REJECT]);
    const events = await collect(withThinkingFallback(s.fn)(req('high')));
    expect(s.levels).toEqual(['high', 'medium']);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'text_delta', 'done']);
    expect(events[1]).toMatchObject({ delta: 'at medium' });
  });

  it('retries only once: a second rejection ends the stream with it', async () => {
    const s = failing([REJECT, REJECT]);
    const events = await collect(withThinkingFallback(s.fn)(req('medium')));
    expect(s.levels).toEqual(['medium', 'low']);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', error: REJECT });
  });

  it.each([
    ['another error', [apiError(429, 'Rate limit reached')], 'high'],
    ['thinking off', [REJECT], 'off'],
  ] as const)('does not retry on %s', async (_n, errors, level) => {
    const s = failing([...errors]);
    const events = await collect(withThinkingFallback(s.fn)(req(level)));
    expect(s.levels).toEqual([level]);
    expect(events[0]!.type).toBe('error');
  });
});
