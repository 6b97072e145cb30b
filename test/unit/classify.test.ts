import { describe, expect, it } from 'vitest';
import { classifyError, isContextOverflowText, redactKeys, retryAfterFromHeaders, type FailoverReason } from '../../main/engine/classify.js';

const withProps = (message: string, props: Record<string, unknown>, name?: string): Error => {
  const e = Object.assign(new Error(message), props);
  if (name) e.name = name;
  return e;
};
const statusErr = (status: number, message: string, props: Record<string, unknown> = {}) =>
  withProps(`${status} ${message}`, { status, ...props });

describe('classifyError: reason table', () => {
  it.each<[string, unknown, FailoverReason]>([
    // HTTP status table
    ['402 plain', statusErr(402, 'Payment Required'), 'billing'],
    ['402 with a daily limit text', statusErr(402, 'You have hit your daily limit'), 'rate_limit'],
    ['402 spend limit', statusErr(402, 'monthly spend limit reached'), 'rate_limit'],
    ['429 plain', statusErr(429, 'Too Many Requests'), 'rate_limit'],
    ['429 with billing text', statusErr(429, 'Your credit balance is too low'), 'billing'],
    ['429 weekly usage limit (item 3)', statusErr(429, 'weekly usage limit exhausted'), 'rate_limit'],
    ['401', statusErr(401, 'Unauthorized'), 'auth'],
    ['403', statusErr(403, 'Forbidden'), 'auth'],
    ['403 with billing text', statusErr(403, 'Your team has either used all available credits or reached its monthly spending limit.'), 'billing'],
    ['401 OpenRouter key limit (issue 21)', statusErr(401, 'Key limit exceeded (total limit)'), 'billing'],
    ['403 OpenRouter key limit (issue 21)', statusErr(403, 'Key limit exceeded'), 'billing'],
    ['statusCode as a string (issue 21)', { statusCode: '429', message: 'slow down' }, 'rate_limit'],
    ['Kimi overflow on a 400 (issue 21)', statusErr(400, 'Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)'), 'context_overflow'],
    ['a 404 with explicit auth text (issue 21)', statusErr(404, 'invalid_api_key'), 'auth'],
    ['a 410 with explicit billing text (issue 21)', statusErr(410, 'insufficient credits'), 'billing'],
    ['404', statusErr(404, 'Not Found'), 'model_not_found'],
    ['408', statusErr(408, 'Request Timeout'), 'timeout'],
    ['410', statusErr(410, 'Gone'), 'timeout'],
    ['499', statusErr(499, 'Client Closed Request'), 'timeout'],
    ['504', statusErr(504, 'Gateway Timeout'), 'timeout'],
    ['522', statusErr(522, 'origin unreachable'), 'timeout'],
    ['524', statusErr(524, 'A timeout occurred'), 'timeout'],
    ['529', statusErr(529, 'whatever'), 'overloaded'],
    ['500', statusErr(500, 'Internal server error'), 'server_error'],
    ['502', statusErr(502, 'Bad Gateway'), 'server_error'],
    ['503 overloaded text (OpenAI)', statusErr(503, 'That model is currently overloaded with other requests.'), 'overloaded'],
    ['503 html', statusErr(503, '<html><head><title>503 Service Temporarily Unavailable</title></head></html>'), 'server_error'],
    ['400 no better match → format', statusErr(400, 'messages.1.content: unexpected tool_use_id'), 'format'],
    ['422 no better match → format', statusErr(422, 'Unprocessable Entity'), 'format'],
    ['400 billing text (Anthropic credit balance)', statusErr(400, 'Your credit balance is too low to access the Anthropic API.'), 'billing'],
    ['409 unknown', statusErr(409, 'Conflict'), 'unknown'],
    // codes
    ['insufficient_quota code on 429', statusErr(429, 'You exceeded your current quota', { code: 'insufficient_quota' }), 'billing'],
    ['RESOURCE_EXHAUSTED', withProps('quota', { code: 'RESOURCE_EXHAUSTED' }), 'rate_limit'],
    ['ThrottlingException', withProps('slow down', { code: 'ThrottlingException' }), 'rate_limit'],
    ['OVERLOADED_ERROR code', withProps('busy', { code: 'OVERLOADED_ERROR' }), 'overloaded'],
    ['ECONNRESET', withProps('read ECONNRESET', { code: 'ECONNRESET' }), 'timeout'],
    ['ECONNREFUSED', withProps('connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNREFUSED' }), 'timeout'],
    ['ETIMEDOUT', withProps('whatever', { code: 'ETIMEDOUT' }), 'timeout'],
    ['ERR_STREAM_PREMATURE_CLOSE', withProps('Premature close', { code: 'ERR_STREAM_PREMATURE_CLOSE' }), 'timeout'],
    ['mid-stream anthropic overloaded (status undefined)', withProps('{"type":"error"}', { status: undefined, type: 'overloaded_error', apiMessage: 'Overloaded' }), 'overloaded'],
    ['mid-stream anthropic api_error', withProps('x', { type: 'api_error', apiMessage: 'Internal server error' }), 'server_error'],
    ['mid-stream openai server_error', withProps('boom', { code: null, param: null, type: 'server_error', error: { message: 'boom', type: 'server_error' } }), 'server_error'],
    ['mid-stream openai server_error saying overloaded', withProps('x', { type: 'server_error', error: { message: 'The model is overloaded', type: 'server_error' } }), 'overloaded'],
    ['invalid_request_error without status → format', withProps('bad', { type: 'invalid_request_error', apiMessage: 'messages: roles must alternate' }), 'format'],
    // connection failures, aborts, our own errors
    ['TypeError terminated', new TypeError('terminated'), 'timeout'],
    ['Error terminated (helper)', new Error('terminated'), 'timeout'],
    ['fetch failed', new TypeError('fetch failed'), 'timeout'],
    ['socket hang up', new Error('socket hang up'), 'timeout'],
    ['APIConnectionError', withProps('Connection error.', {}, 'APIConnectionError'), 'timeout'],
    ['APIConnectionTimeoutError', withProps('Request timed out.', {}, 'APIConnectionTimeoutError'), 'timeout'],
    ['IdleTimeoutError', withProps('no bytes for 60000 ms', {}, 'IdleTimeoutError'), 'timeout'],
    ['DOMException TimeoutError', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'timeout'],
    ['AbortError', new DOMException('This operation was aborted', 'AbortError'), 'aborted'],
    ['APIUserAbortError', withProps('Request was aborted.', {}, 'APIUserAbortError'), 'aborted'],
    ['ModelNotFoundError', withProps('Unknown model: foo/bar', {}, 'ModelNotFoundError'), 'model_not_found'],
    ['stream ended before message_stop', new Error('stream ended before message_stop'), 'timeout'],
    ['missing finish_reason (openai helper)', new Error('missing finish_reason for choice 0'), 'timeout'],
    // plain objects (OpenAI Responses events)
    ['Responses error event, top level', { type: 'error', code: 'server_error', message: 'The server had an error', param: null, sequence_number: 2 }, 'server_error'],
    ['Responses error event, nested overflow', { type: 'error', sequence_number: 2, error: { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', param: 'input' } }, 'context_overflow'],
    ['Responses response.failed overloaded', { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'Our servers are currently overloaded. Please try again later.' } } }, 'overloaded'],
    ['Responses rate_limit_exceeded', { type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit reached' }, 'rate_limit'],
    ['plain object with status', { status: 429, message: 'slow down' }, 'rate_limit'],
    // plain texts
    ['text: 429 Too Many Requests', '429 Too Many Requests', 'rate_limit'],
    ['text: HTTP 503', 'upstream returned HTTP 503', 'server_error'],
    ['text: rate limit', 'Rate limit exceeded, please retry', 'rate_limit'],
    ['text: insufficient quota', 'insufficient_quota: you exceeded your current quota', 'billing'],
    ['text: daily usage limit', "You've reached your daily usage limit", 'rate_limit'],
    ['text: invalid api key', 'Invalid API key provided', 'auth'],
    ['text: model does not exist', 'The model `gpt-nope` does not exist or you do not have access to it.', 'model_not_found'],
    ['text: finish_reason error', 'provider returned finish_reason: error', 'server_error'],
    ['text: gibberish', 'something odd happened', 'unknown'],
    ['undefined', undefined, 'unknown'],
    ['null', null, 'unknown'],
    // context overflow
    ['anthropic prompt too long', statusErr(400, 'x', { apiMessage: 'prompt is too long: 212345 tokens > 200000 maximum', type: 'invalid_request_error' }), 'context_overflow'],
    ['openai context_length_exceeded code', statusErr(400, 'x', { code: 'context_length_exceeded' }), 'context_overflow'],
    ['openai maximum context length text', statusErr(400, "This model's maximum context length is 128000 tokens."), 'context_overflow'],
    ['anthropic 413 request_too_large', statusErr(413, 'Request exceeds the maximum allowed number of bytes.', { type: 'request_too_large' }), 'context_overflow'],
    ['413 html too large', '413 Request Entity Too Large', 'context_overflow'],
    ['llama.cpp exceed_context_size_error', statusErr(400, 'the request exceeds the available context size.', { code: 400, type: 'exceed_context_size_error' }), 'context_overflow'],
    ['LM Studio string body', statusErr(400, '"Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens"'), 'context_overflow'],
    ['mid-stream string error', withProps('"Context size has been exceeded."', { error: 'Context size has been exceeded.' }), 'context_overflow'],
    // inventory §21 item 11
    ['Groq 413 TPM ceiling (item 11)', '413 Request too large for model `llama-3.1-8b` on tokens per minute (TPM): Limit 8000, Requested 8098, please reduce your message size and try again.', 'context_overflow'],
    ['Groq 413 with rate_limit_exceeded code (item 11)', statusErr(413, 'Request too large on tokens per minute (TPM): Limit 8000, Requested 8098', { code: 'rate_limit_exceeded', type: 'tokens' }), 'context_overflow'],
    ['429 TPM Limit/Used/Requested (item 11)', '429 Rate limit reached on tokens per min (TPM): Limit 8000, Used 7500, Requested 1000.', 'rate_limit'],
    ['429 TPM with code (item 11)', statusErr(429, 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29937, Requested 385.', { code: 'rate_limit_exceeded' }), 'rate_limit'],
    // inventory §21 item 12
    ['LM Studio loaded with context length of only 4096 (item 12)', 'Error: The model is loaded with context length of only 4096 tokens, which is not enough', 'context_overflow'],
    ['LM Studio prompt template (item 12)', statusErr(400, 'Error rendering prompt with jinja template. You can override the prompt template for this model.'), 'format'],
  ])('%s', (_label, err, reason) => {
    expect(classifyError(err, 0).reason).toBe(reason);
  });
});

describe('isContextOverflowText', () => {
  it.each<[string, boolean]>([
    ['prompt is too long: 200049 tokens > 200000 maximum', true],
    ['input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000', true],
    ['Your input exceeds the context window of this model.', true],
    ['input token count exceeds the maximum number of tokens allowed', true],
    ['Context window exceeded: requested 12000 tokens', true],
    ["Let's investigate the context overflow bug", false],
    ['413 Payload Too Large', true],
    ['Input is too long for requested model.', true],
    ['max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens', false],
    ['TPM: Limit 8000, Requested 8098', true],
    ['TPM: Limit 8000, Used 7500, Requested 1000', false],
    ['Limit 8000, Requested 7000', false],
    ['Rate limit reached on tokens per min (TPM)', false],
    ['You exceeded your current quota, context too long', false],
    ['max_tokens must be greater than thinking.budget_tokens', false],
    ['Model context window too small (4096 tokens). Minimum is 16000.', false],
    ['override the prompt template, the context is too long', false],
    ['Internal server error', false],
    ['', false],
  ])('%s → %s', (text, expected) => {
    expect(isContextOverflowText(text)).toBe(expected);
  });
});

describe('classifyError: fields', () => {
  it('reads status, code, retry-after and writes one clear line', () => {
    const headers = new Headers({ 'retry-after': '7', 'request-id': 'req_1' });
    const err = statusErr(529, '{"type":"error"}', { headers, type: 'overloaded_error', apiMessage: 'Overloaded' });
    expect(classifyError(err, 0)).toEqual({
      reason: 'overloaded',
      status: 529,
      code: 'overloaded_error',
      message: 'Anthropic is overloaded (529): Overloaded',
      retryAfterMs: 7000,
      transient: true,
    });
  });

  it.each<[string, FailoverReason, boolean]>([
    ['429 x', 'rate_limit', true],
    ['529 x', 'overloaded', true],
    ['fetch failed', 'timeout', true],
    ['500 x', 'server_error', true],
    ['402 Payment Required', 'billing', false],
    ['401 x', 'auth', false],
    ['prompt is too long', 'context_overflow', false],
    ['400 x', 'format', false],
    ['404 x', 'model_not_found', false],
    ['nothing known', 'unknown', false],
  ])('transient for %s (%s) is %s', (text, reason, transient) => {
    expect(classifyError(text, 0)).toMatchObject({ reason, transient });
  });

  it('names the provider by the SDK error shape or the override', () => {
    const openai = Object.assign(new Error('401 bad'), { status: 401, code: 'invalid_api_key', param: null, type: 'invalid_request_error', error: { message: 'bad' } });
    expect(classifyError(openai, 0).message).toBe('OpenAI rejected the API key (401): bad');
    expect(classifyError(openai, 0, 'Groq').message).toBe('Groq rejected the API key (401): bad');
    expect(classifyError(new TypeError('terminated'), 0).message).toBe('Could not reach the provider: the connection failed or timed out: terminated');
  });

  it('never throws on odd input (circular causes, symbols, numbers)', () => {
    const loop: Record<string, unknown> = { message: 'loop' };
    loop.cause = loop;
    loop.error = loop;
    expect(classifyError(loop, 0).reason).toBe('unknown');
    expect(classifyError(Symbol('x'), 0).reason).toBe('unknown');
    expect(classifyError(42, 0).reason).toBe('unknown');
  });

  it('redacts keys from the message', () => {
    const err = statusErr(401, 'Incorrect API key provided: sk-proj-abcdef1234567890. Bearer abcdefghijklmnop', {});
    const { message } = classifyError(err, 0);
    expect(message).not.toMatch(/abcdef1234567890|abcdefghijklmnop/);
    expect(message).toContain('sk-***');
    expect(classifyError('key sk-ant-api03-SECRETSECRET leaked', 0).message).not.toContain('SECRET');
  });

  it('shortens HTML and JSON bodies to one line', () => {
    const html = statusErr(503, '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>…</body></html>');
    expect(classifyError(html, 0).message).toBe('The provider server error (503): 503 Service Temporarily Unavailable');
    const json = statusErr(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(classifyError(json, 0).message).toBe('The provider is overloaded (529): Overloaded');
    const long = classifyError(statusErr(500, 'x'.repeat(1000)), 0).message;
    expect(long.length).toBeLessThan(340);
    expect(long).not.toContain('\n');
  });
});

describe('retryAfterFromHeaders', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it.each<[string, unknown, number | undefined]>([
    ['seconds', new Headers({ 'retry-after': '3' }), 3000],
    ['fractional seconds', new Headers({ 'retry-after': '1.5' }), 1500],
    ['retry-after-ms wins', new Headers({ 'retry-after-ms': '644', 'retry-after': '9' }), 644],
    ['HTTP date', new Headers({ 'retry-after': 'Sun, 29 Nov 2026 12:00:30 GMT' }), 30_000],
    ['past date → 0', new Headers({ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }), 0],
    ['plain record, any case', { 'Retry-After': '2' }, 2000],
    ['garbage', new Headers({ 'retry-after': 'soon' }), undefined],
    ['none', new Headers(), undefined],
    ['no headers', undefined, undefined],
  ])('%s', (_l, headers, expected) => {
    expect(retryAfterFromHeaders(headers, now)).toBe(expected);
  });
});

describe('redactKeys', () => {
  it.each<[string, string]>([
    ['key sk-ant-api03-abcDEF_123-xyz here', 'key sk-ant-*** here'],
    ['sk-proj-1234567890abcdef', 'sk-***'],
    ['Authorization: Bearer abc.def.ghi123', 'Authorization: Bearer ***'],
    ['x-api-key: abcdef123456', 'x-api-key: ***'],
    ['https://x.test/v1?key=AIzaSyD-1234567890abcdefghij', 'https://x.test/v1?key=***'],
    ['nothing secret in a task-force', 'nothing secret in a task-force'],
  ])('%s', (input, expected) => {
    expect(redactKeys(input)).toBe(expected);
  });
});
