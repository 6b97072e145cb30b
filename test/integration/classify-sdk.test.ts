/**
 * classifyError against REAL SDK error objects: every fault of the fake servers × both SDKs (maxRetries 0),
 * plus compat error bodies (Groq, LM Studio, llama.cpp, vLLM) and inventory §21 items 11 and 12.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyError, type FailoverReason } from '../../main/engine/classify.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeFault, type FakeProvider, type FakeTurn } from '../fake/index.js';

const KEY = 'sk-live-SECRETKEY123456';
const NOW = Date.parse('2026-11-29T12:00:00Z');
type Mode = 'raw' | 'helper' | 'json';
type Expect = { reason: FailoverReason; status?: number; code?: string; retryAfterMs?: number; transient?: boolean };
type Case = [string, FakeTurn, Mode, Expect];

let anthropicFake: FakeProvider;
let openaiFake: FakeProvider;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  [anthropicFake, openaiFake] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
  // 1.5 s: the "headers never sent" rows wait for it; shorter, a loaded machine turned a 429 into the SDK's timeout
  anthropic = new Anthropic({ baseURL: anthropicFake.baseUrl, apiKey: KEY, maxRetries: 0, timeout: 1500 });
  openai = new OpenAI({ baseURL: openaiFake.baseUrl, apiKey: KEY, maxRetries: 0, timeout: 1500 });
});
afterAll(() => Promise.all([anthropicFake.close(), openaiFake.close()]));

/** Runs one request and returns what it threw (fails the test if nothing was thrown). */
async function thrown(run: () => Promise<unknown>): Promise<unknown> {
  const NONE = Symbol('none');
  const got = await run().then(
    () => NONE,
    (e: unknown) => e,
  );
  expect(got, 'the SDK call should have thrown').not.toBe(NONE);
  return got;
}

async function anthropicError(turn: FakeTurn, mode: Mode): Promise<unknown> {
  anthropicFake.enqueue(turn);
  const params = { model: 'claude-fake', max_tokens: 512, messages: [{ role: 'user' as const, content: 'hi' }] };
  if (mode === 'json') return thrown(() => anthropic.messages.create(params));
  if (mode === 'helper') return thrown(() => anthropic.messages.stream(params).finalMessage());
  return thrown(async () => {
    for await (const _ of await anthropic.messages.create({ ...params, stream: true })) void _;
  });
}

async function openaiError(turn: FakeTurn, mode: Mode): Promise<unknown> {
  openaiFake.enqueue(turn);
  const params = { model: 'gpt-fake', messages: [{ role: 'user' as const, content: 'hi' }] };
  const streamParams = { ...params, stream: true as const, stream_options: { include_usage: true } };
  if (mode === 'json') return thrown(() => openai.chat.completions.create(params));
  if (mode === 'helper') return thrown(() => openai.chat.completions.stream(streamParams).finalChatCompletion());
  return thrown(async () => {
    for await (const _ of await openai.chat.completions.create(streamParams)) void _;
  });
}

function check(err: unknown, exp: Expect): void {
  const c = classifyError(err, NOW);
  expect({ reason: c.reason, status: c.status, code: c.code, retryAfterMs: c.retryAfterMs }).toEqual({
    reason: exp.reason,
    status: exp.status,
    code: exp.code,
    retryAfterMs: exp.retryAfterMs,
  });
  if (exp.transient !== undefined) expect(c.transient).toBe(exp.transient);
  expect(c.message).not.toMatch(/SECRETKEY|sk-live|\n/);
  expect(c.message.length).toBeGreaterThan(10);
}

const f = (fault: FakeFault, text = 'partial answer text'): FakeTurn => ({ text, fault });
const httpDate = new Date(NOW + 90_000).toUTCString();

describe('Anthropic SDK errors → classifyError', () => {
  it.each<Case>([
    ['rate_limit + retry-after', f({ kind: 'rate_limit', retryAfterSeconds: 7 }), 'raw', { reason: 'rate_limit', status: 429, code: 'rate_limit_error', retryAfterMs: 7000, transient: true }],
    ['overloaded 529', f({ kind: 'overloaded' }), 'raw', { reason: 'overloaded', status: 529, code: 'overloaded_error', transient: true }],
    ['server_error 500', f({ kind: 'server_error' }), 'raw', { reason: 'server_error', status: 500, code: 'api_error' }],
    ['503 HTML page', f({ kind: 'unavailable_html' }), 'json', { reason: 'server_error', status: 503 }],
    ['auth 401', f({ kind: 'auth' }), 'raw', { reason: 'auth', status: 401, code: 'authentication_error', transient: false }],
    ['billing 402', f({ kind: 'billing' }), 'raw', { reason: 'billing', status: 402, code: 'billing_error', transient: false }],
    ['prompt is too long', f({ kind: 'context_overflow' }), 'helper', { reason: 'context_overflow', status: 400, code: 'invalid_request_error' }],
    ['model not found', f({ kind: 'not_found' }), 'json', { reason: 'model_not_found', status: 404, code: 'not_found_error' }],
    ['reset before headers', f({ kind: 'reset' }), 'raw', { reason: 'timeout', code: 'UND_ERR_SOCKET', transient: true }],
    ['headers never sent (SDK timeout)', f({ kind: 'hang' }), 'json', { reason: 'timeout' }],
    ['drop mid-stream (TypeError terminated)', f({ kind: 'drop', afterEvents: 5 }), 'raw', { reason: 'timeout', code: 'UND_ERR_SOCKET' }],
    ['drop mid-stream (helper)', f({ kind: 'drop', afterEvents: 5 }), 'helper', { reason: 'timeout', code: 'UND_ERR_SOCKET' }],
    ['eof without message_stop (helper)', f({ kind: 'eof', afterEvents: 2 }), 'helper', { reason: 'timeout' }],
    ['event: error overloaded mid-stream', f({ kind: 'stream_error', afterEvents: 4 }), 'raw', { reason: 'overloaded', code: 'overloaded_error' }],
    ['event: error api_error mid-stream', f({ kind: 'stream_error', afterEvents: 4, errorType: 'api_error', message: 'Internal server error' }), 'helper', { reason: 'server_error', code: 'api_error' }],
    ['event: error overflow mid-stream', f({ kind: 'stream_error', afterEvents: 1, errorType: 'invalid_request_error', message: 'prompt is too long: 200049 tokens > 200000 maximum' }), 'raw', { reason: 'context_overflow', code: 'invalid_request_error' }],
    ['413 request_too_large', f({ kind: 'http', status: 413, body: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } } }), 'raw', { reason: 'context_overflow', status: 413, code: 'request_too_large' }],
    ['504 timeout_error', f({ kind: 'http', status: 504, body: { type: 'error', error: { type: 'timeout_error', message: 'Request timed out' } } }), 'raw', { reason: 'timeout', status: 504, code: 'timeout_error' }],
    ['403 permission_error', f({ kind: 'http', status: 403, body: { type: 'error', error: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' } } }), 'raw', { reason: 'auth', status: 403, code: 'permission_error' }],
    ['400 credit balance (billing text)', f({ kind: 'http', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' } } }), 'raw', { reason: 'billing', status: 400, code: 'invalid_request_error' }],
    ['400 other → format', f({ kind: 'http', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.1: tool_use ids were found without tool_result blocks' } } }), 'raw', { reason: 'format', status: 400, code: 'invalid_request_error' }],
    ['429 spend limit error_code + x-should-retry', f({ kind: 'http', status: 429, headers: { 'x-should-retry': 'false', 'retry-after': httpDate }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'You have reached your specified API usage limits.', details: { error_code: 'enforced_spend_limit_reached' } } } }), 'raw', { reason: 'rate_limit', status: 429, code: 'enforced_spend_limit_reached', retryAfterMs: 90_000 }],
  ])('%s', async (_n, turn, mode, exp) => {
    check(await anthropicError(turn, mode), exp);
  });

  it('pre-aborted signal → APIUserAbortError → aborted', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const err = await thrown(() => anthropic.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, { signal: ctl.signal }));
    expect(err).toBeInstanceOf(Anthropic.APIUserAbortError);
    check(err, { reason: 'aborted' });
  });

  it('stall, then the caller aborts the helper → aborted', async () => {
    anthropicFake.enqueue(f({ kind: 'stall', afterEvents: 3 }));
    const stream = anthropic.messages.stream({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    setTimeout(() => stream.abort(), 100);
    check(await thrown(() => stream.finalMessage()), { reason: 'aborted' });
  });
});

const oaBody = (status: number, error: unknown, headers?: Record<string, string>): FakeTurn =>
  f({ kind: 'http', status, body: { error }, ...(headers ? { headers } : {}) });

describe('OpenAI SDK errors → classifyError', () => {
  it.each<Case>([
    ['rate_limit TPM + retry-after', f({ kind: 'rate_limit', retryAfterSeconds: 3 }), 'raw', { reason: 'rate_limit', status: 429, code: 'rate_limit_exceeded', retryAfterMs: 3000, transient: true }],
    ['overloaded 503', f({ kind: 'overloaded' }), 'raw', { reason: 'overloaded', status: 503, code: 'server_error', transient: true }],
    ['server_error 500', f({ kind: 'server_error' }), 'json', { reason: 'server_error', status: 500, code: 'server_error' }],
    ['503 HTML page', f({ kind: 'unavailable_html' }), 'raw', { reason: 'server_error', status: 503 }],
    ['auth 401 (echoes a masked key)', f({ kind: 'auth' }), 'raw', { reason: 'auth', status: 401, code: 'invalid_api_key', transient: false }],
    ['insufficient_quota 429', f({ kind: 'billing' }), 'raw', { reason: 'billing', status: 429, code: 'insufficient_quota', transient: false }],
    ['context_length_exceeded', f({ kind: 'context_overflow' }), 'helper', { reason: 'context_overflow', status: 400, code: 'context_length_exceeded' }],
    ['model_not_found', f({ kind: 'not_found' }), 'json', { reason: 'model_not_found', status: 404, code: 'model_not_found' }],
    ['reset before headers', f({ kind: 'reset' }), 'raw', { reason: 'timeout', code: 'UND_ERR_SOCKET' }],
    ['headers never sent (SDK timeout)', f({ kind: 'hang' }), 'json', { reason: 'timeout' }],
    ['drop mid-stream (TypeError terminated)', f({ kind: 'drop', afterEvents: 2 }), 'raw', { reason: 'timeout', code: 'UND_ERR_SOCKET' }],
    ['drop mid-stream (helper)', f({ kind: 'drop', afterEvents: 2 }), 'helper', { reason: 'timeout', code: 'UND_ERR_SOCKET' }],
    ['eof without [DONE] (helper: missing finish_reason)', f({ kind: 'eof', afterEvents: 2 }), 'helper', { reason: 'timeout' }],
    ['data: {"error"} server_error mid-stream', f({ kind: 'stream_error', afterEvents: 2 }), 'raw', { reason: 'server_error', code: 'server_error' }],
    ['data: {"error"} overloaded text mid-stream', f({ kind: 'stream_error', afterEvents: 2, message: 'That model is currently overloaded with other requests.' }), 'raw', { reason: 'overloaded', code: 'server_error' }],
    ['retry-after-ms header', oaBody(429, { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' }, { 'retry-after-ms': '644', 'retry-after': '1' }), 'raw', { reason: 'rate_limit', status: 429, code: 'rate_limit_exceeded', retryAfterMs: 644 }],
    ['retry-after HTTP date', oaBody(429, { message: 'Too many requests', type: 'requests', param: null, code: null }, { 'retry-after': httpDate }), 'raw', { reason: 'rate_limit', status: 429, code: 'requests', retryAfterMs: 90_000 }],
    // inventory §21 item 11 (Groq TPM)
    ['Groq 413 TPM Limit < Requested → overflow', oaBody(413, { message: 'Request too large for model `llama-3.1-8b-instant` in organization org_x service tier on_demand on tokens per minute (TPM): Limit 8000, Requested 8098, please reduce your message size and try again.', type: 'tokens', code: 'rate_limit_exceeded' }), 'raw', { reason: 'context_overflow', status: 413, code: 'rate_limit_exceeded' }],
    ['Groq 429 TPM Limit/Used/Requested → rate_limit', oaBody(429, { message: 'Rate limit reached for model `llama-3.1-8b-instant` on tokens per minute (TPM): Limit 8000, Used 7500, Requested 1000. Please try again in 3.75s.', type: 'tokens', code: 'rate_limit_exceeded' }), 'raw', { reason: 'rate_limit', status: 429, code: 'rate_limit_exceeded' }],
    // inventory §21 item 12 (LM Studio)
    ['LM Studio string body: context length of only 4096', f({ kind: 'http', status: 400, body: { error: 'Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.' } }), 'raw', { reason: 'context_overflow', status: 400 }],
    ['LM Studio prompt template → not overflow (format)', f({ kind: 'http', status: 400, body: { error: 'Error rendering prompt with jinja template: Unknown test: sequence. You can override the prompt template in My Models.' } }), 'raw', { reason: 'format', status: 400 }],
    ['llama.cpp exceed_context_size_error', oaBody(400, { code: 400, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error', n_prompt_tokens: 14429, n_ctx: 8192 }), 'raw', { reason: 'context_overflow', status: 400, code: 'exceed_context_size_error' }],
    ['llama.cpp old build: 500 with overflow text', oaBody(500, { code: 500, message: 'the request exceeds the available context size', type: 'server_error' }), 'raw', { reason: 'context_overflow', status: 500, code: 'server_error' }],
    // Known limitation: a flat vLLM<0.10.1 body reaches us as "400 status code (no body)".
    ['vLLM flat body loses its text → format', f({ kind: 'http', status: 400, body: { object: 'error', message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', param: null, code: 400 } }), 'raw', { reason: 'format', status: 400 }],
    ['Ollama not_found_error', oaBody(404, { message: 'model "llama9" not found, try pulling it first', type: 'not_found_error', param: null, code: null }), 'json', { reason: 'model_not_found', status: 404, code: 'not_found_error' }],
    ['string error mid-stream: context size exceeded', f({ kind: 'http', status: 400, body: { error: 'Context size has been exceeded.' } }), 'raw', { reason: 'context_overflow', status: 400 }],
  ])('%s', async (_n, turn, mode, exp) => {
    check(await openaiError(turn, mode), exp);
  });

  it('pre-aborted signal → APIUserAbortError → aborted', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const err = await thrown(() => openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, { signal: ctl.signal }));
    expect(err).toBeInstanceOf(OpenAI.APIUserAbortError);
    check(err, { reason: 'aborted' });
  });

  it('the user message names the provider and keeps the provider text', async () => {
    const c = classifyError(await openaiError(f({ kind: 'overloaded' }), 'raw'), NOW);
    expect(c.message).toMatch(/^OpenAI is overloaded \(503\): That model is currently overloaded/);
    const a = classifyError(await anthropicError(f({ kind: 'overloaded' }), 'raw'), NOW);
    expect(a.message).toBe('Anthropic is overloaded (529): Overloaded');
    const drop = classifyError(await openaiError(f({ kind: 'drop', afterEvents: 1 }), 'raw'), NOW);
    expect(drop.message).toBe('Could not reach the provider: the connection failed or timed out (UND_ERR_SOCKET): terminated (other side closed)');
  });
});
