/**
 * E21 through the real SDKs and the fake servers: a provider that rejects the thinking level with a 400 gets one
 * retry a level lower (providers/thinking-fallback.ts via the registry), for all three APIs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFnFor } from '../../main/providers/registry.js';
import type { ApiKind, ModelDef } from '../../main/providers/types.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeProvider, type FakeTurn, type RecordedRequest } from '../fake/index.js';
import { baseRequest, runStream } from '../support/provider-stream.js';

let anthropic: FakeProvider;
let openai: FakeProvider;
beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
});
afterAll(() => Promise.all([anthropic.close(), openai.close()]));

/** The level the request asked for, in each API's own field. */
const levelOf = (b: RecordedRequest['body']): unknown => b.reasoning_effort ?? b.reasoning?.effort ?? b.thinking?.budget_tokens ?? 'off';

const openaiReject = (param: string, value: unknown): FakeTurn => ({
  fault: {
    kind: 'http',
    status: 400,
    body: { error: { message: `Unsupported value: '${param}' does not support '${String(value)}' with this model. Supported values are: 'low' and 'medium'.`, type: 'invalid_request_error', param, code: 'unsupported_value' } },
  },
});
const anthropicReject: FakeTurn = {
  fault: { kind: 'http', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'thinking.budget_tokens: Input should be less than or equal to 8192' } } },
};

describe.each([
  ['anthropic', () => anthropic, (b: RecordedRequest['body']) => (b.thinking?.budget_tokens > 8192 ? anthropicReject : null), [16384, 8192]],
  ['openai-chat', () => openai, (b: RecordedRequest['body']) => (b.reasoning_effort === 'high' ? openaiReject('reasoning_effort', 'high') : null), ['high', 'medium']],
  ['openai-responses', () => openai, (b: RecordedRequest['body']) => (b.reasoning?.effort === 'high' ? openaiReject('reasoning.effort', 'high') : null), ['high', 'medium']],
] as const)('%s rejecting thinking "high"', (api, fake, reject, sentLevels) => {
  it('is retried once at "medium" and the run succeeds', async () => {
    const server = fake();
    server.requests.length = 0;
    server.setDefault((req) => reject(req.body) ?? { text: 'Answered at a lower level.' });
    const model: ModelDef = { provider: 'p', id: 'model-x', api: api as ApiKind, baseUrl: server.baseUrl, contextWindow: 100_000, maxTokens: 32_000, reasoning: true };
    const r = await runStream(streamFnFor(model.api), baseRequest(model, 'sk-test', { thinking: 'high' }));
    expect(r.last).toMatchObject({ type: 'done', stopReason: 'stop' });
    expect(r.events.filter((e) => e.type === 'error')).toHaveLength(0);
    expect(server.requests.map((q) => levelOf(q.body))).toEqual(sentLevels);
  });

  it('a rejection that persists at the lower level ends in one error event after exactly two requests', async () => {
    const server = fake();
    server.requests.length = 0;
    server.setDefault(api === 'anthropic' ? anthropicReject : openaiReject(api === 'openai-chat' ? 'reasoning_effort' : 'reasoning.effort', 'x'));
    const model: ModelDef = { provider: 'p', id: 'model-x', api: api as ApiKind, baseUrl: server.baseUrl, contextWindow: 100_000, maxTokens: 32_000, reasoning: true };
    const r = await runStream(streamFnFor(model.api), baseRequest(model, 'sk-test', { thinking: 'high' }));
    expect(r.last.type).toBe('error');
    expect(server.requests).toHaveLength(2);
    server.setDefault({ text: 'Hello from the fake server.' });
  });
});
