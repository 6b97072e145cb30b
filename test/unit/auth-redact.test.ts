/**
 * X5 "keys never echoed": every configured key and every 8-character piece of it is cut out of error text; errors
 * are cleaned in place (message, stack, the parsed body the SDKs keep); the environment scrub drops a variable whose
 * value contains a key; a stored key goes to its provider's configured base URL only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_KEY_CHARS, REDACTED, SecretRedactor } from '../../main/auth/redact.js';
import { scrubEnv } from '../../main/tools/env.js';
import { configSchema } from '../../main/engine/config/schema.js';
import { configuredBaseUrl, fetchEndpointModels, sameEndpoint } from '../../main/providers/list-models.js';

const KEY = '3f9a0c2e7b1d4a6f8e0b2c4d6e8f0a1b'; // a key format without any recognisable prefix
const OTHER = 'zq-PROXY-Kx81mVb07LpQw4';

describe('SecretRedactor.redact', () => {
  const r = new SecretRedactor();
  r.add(KEY);
  r.add(OTHER);
  it.each([
    ['the whole key', `Incorrect API key provided: ${KEY}.`, `Incorrect API key provided: ${REDACTED}.`],
    ['quoted in JSON', `{"error":{"message":"bad key '${KEY}'"}}`, `{"error":{"message":"bad key '${REDACTED}'"}}`],
    ['a cut copy (an 8-character piece at least)', `key ending …${KEY.slice(-12)} is invalid`, `key ending …${REDACTED} is invalid`],
    ['its start', `key ${KEY.slice(0, 9)}… rejected`, `key ${REDACTED}… rejected`],
    ['twice, and another key', `${KEY} / ${OTHER} / ${KEY}`, `${REDACTED} / ${REDACTED} / ${REDACTED}`],
    ['a piece shorter than 8 characters stays (the mask shows six and four)', `key ${KEY.slice(0, 6)}…${KEY.slice(-4)}`, `key ${KEY.slice(0, 6)}…${KEY.slice(-4)}`],
    ['nothing to do', 'Rate limit reached for requests', 'Rate limit reached for requests'],
    ['word-like pieces of a key are left alone (a key named "zq-PROXY-…" does not cut "PROXY-Kx" … only key material)', 'a PROXY-KEY error', 'a PROXY-KEY error'],
    ['empty', '', ''],
  ])('%s', (_l, input, out) => {
    expect(r.redact(input)).toBe(out);
  });
  it('a key whose pieces read like words: the whole key is still cut, ordinary words are not', () => {
    const s = new SecretRedactor();
    s.add('sk-ant-subagent-0001');
    expect(s.redact('The subagent was stopped; key sk-ant-subagent-0001 rejected')).toBe(`The subagent was stopped; key ${REDACTED} rejected`);
    expect(s.redact('…agent-0001 was cut')).toBe(`…${REDACTED} was cut`);
  });
  it('ignores keys too short to be secrets (the demo key, a local server\'s placeholder)', () => {
    const s = new SecretRedactor();
    s.add('demo');
    s.add('no-key');
    s.add(' '.repeat(20));
    expect(s.size).toBe(0);
    expect(s.redact('demo no-key')).toBe('demo no-key');
    expect(MIN_KEY_CHARS).toBe(8);
  });
});

describe('SecretRedactor.redactError (in place)', () => {
  it('cleans message, stack, the parsed body, nested causes; survives cycles and read-only properties', () => {
    const r = new SecretRedactor();
    r.add(KEY);
    class APIError extends Error {
      status = 401;
      error = { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` } };
      headers = { 'x-request-id': 'req_1' };
    }
    const err = new APIError(`401 {"type":"error","error":{"message":"invalid x-api-key ${KEY}"}}`);
    (err as { cause?: unknown }).cause = new Error(`upstream said ${KEY}`);
    (err.error as Record<string, unknown>).self = err.error;
    Object.defineProperty(err, 'frozen', { value: `still ${KEY}`, writable: false, enumerable: true });
    expect(r.redactError(err)).toBe(err);
    expect(err.message).toBe(`401 {"type":"error","error":{"message":"invalid x-api-key ${REDACTED}"}}`);
    expect(err.stack).not.toContain(KEY.slice(0, 8));
    expect(err.error.error.message).toBe(`invalid x-api-key ${REDACTED}`);
    expect(((err as { cause?: Error }).cause as Error).message).toBe(`upstream said ${REDACTED}`);
    expect(err.status).toBe(401);
    expect(r.redactError(`plain ${KEY}`)).toBe(`plain ${REDACTED}`);
  });
});

describe('the environment scrub', () => {
  it('drops a variable whose value contains a key, whatever its name', () => {
    const env = { PATH: '/bin', DB_URL: `https://user:${KEY}@db.example/x`, JSON_CFG: `{"k":"${KEY}"}`, EXACT: KEY, OTHER: 'fine' };
    expect(scrubEnv(env, { values: [KEY] })).toEqual({ PATH: '/bin', OTHER: 'fine', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
  });
});

describe('providers.fetchModels sends a stored key only to its provider\'s base URL', () => {
  let server: Server;
  let base = '';
  const seen: (string | undefined)[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model', created: 0, owned_by: 'x' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => {
    server.close();
  });

  it.each([
    ['the configured URL', (b: string) => b, `Bearer ${KEY}`],
    ['the configured URL with a trailing slash', (b: string) => `${b}/`, `Bearer ${KEY}`],
    ['another path on the same server', (b: string) => b.replace('/v1', '/v2'), undefined],
    ['another port', (b: string) => b.replace(/:\d+/, ':1'), 'unreachable'],
  ])('%s', async (_l, url, expected) => {
    const config = configSchema.parse({ providers: { local: { api: 'openai-chat', baseUrl: base, models: [] } } });
    seen.length = 0;
    const run = fetchEndpointModels(config, 'openai-chat', url(base), 'local', async () => KEY);
    if (expected === 'unreachable') {
      await expect(run).rejects.toThrow(/no key was sent: local's stored key goes only to its saved base URL/);
      return;
    }
    await run;
    // The SDK sends "Bearer " with an empty key when it has none: the stored key never leaves.
    expect(seen.map((h) => (h === `Bearer ${KEY}` ? h : undefined))).toEqual([expected]);
    if (!expected) expect(seen.join(' ')).not.toContain(KEY);
  });

  it.each([
    ['https://api.anthropic.com', 'https://API.anthropic.com:443/', true],
    ['https://api.openai.com/v1', 'https://api.openai.com/v1/', true],
    ['https://api.openai.com/v1', 'http://api.openai.com/v1', false],
    ['https://api.openai.com/v1', 'https://api.openai.com.evil.example/v1', false],
    ['https://api.openai.com/v1', 'https://evil.example/?https://api.openai.com/v1', false],
    ['not a url', 'not a url', false],
  ])('sameEndpoint(%s, %s) = %s', (a, b, same) => {
    expect(sameEndpoint(a, b)).toBe(same);
  });

  it('built-in providers have their built-in base URL', () => {
    const config = configSchema.parse({});
    expect(configuredBaseUrl(config, 'anthropic')).toBe('https://api.anthropic.com');
    expect(configuredBaseUrl(config, 'openai')).toBe('https://api.openai.com/v1');
    expect(configuredBaseUrl(config, 'nope')).toBeUndefined();
  });
});
