import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { AbortError, describeError, formatSeconds, IdleTimeoutError } from '../../main/providers/errors.js';

describe('describeError', () => {
  const anthropic429 = Anthropic.APIError.generate(
    429,
    { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' }, request_id: 'req_1' },
    undefined,
    new Headers(),
  );
  const openai401 = OpenAI.APIError.generate(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }, undefined, new Headers());
  const html = OpenAI.APIError.generate(503, undefined, '<html><body>Bad gateway</body></html>', new Headers());

  it.each([
    ['an Anthropic HTTP error → status, API message, type', anthropic429, '429 Slow down (rate_limit_error)'],
    ['an OpenAI HTTP error → its own message', openai401, '401 Incorrect API key provided'],
    ['an HTML error page', html, '503 The provider answered with an HTML error page'],
    ['undici terminated', new TypeError('terminated'), 'Connection to the provider was lost (terminated)'],
    ['a plain error', new Error('boom'), 'boom'],
    ['a string', 'text', 'text'],
    ['an object', { error: 'x' }, '{"error":"x"}'],
    ['an idle timeout', new IdleTimeoutError(30_000), 'No data from the provider for 30s'],
    ['an abort', new AbortError(), 'The request was aborted'],
  ])('%s', (_name, err, expected) => {
    expect(describeError(err)).toBe(expected);
  });

  it.each([
    [30_000, '30s'],
    [200, '0.2s'],
    [1_500, '1.5s'],
  ])('formatSeconds(%d) = %s', (ms, s) => expect(formatSeconds(ms)).toBe(s));
});
