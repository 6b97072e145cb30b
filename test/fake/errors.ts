/**
 * Realistic HTTP error replies per API for the HTTP-level faults.
 */
import type { HttpFault, HttpReply, RecordedRequest } from './types.js';

const JSON_TYPE = { 'content-type': 'application/json' };

export const PROXY_503_HTML =
  '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n' +
  '<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

function rawHttp(fault: Extract<HttpFault, { kind: 'http' }>): HttpReply {
  const body = fault.body === undefined ? '' : typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body);
  const headers: Record<string, string> =
    typeof fault.body === 'string' ? { 'content-type': 'text/plain; charset=utf-8' } : { ...JSON_TYPE };
  return { status: fault.status, headers: { ...headers, ...(fault.headers ?? {}) }, body };
}

function retryAfter(fault: HttpFault): Record<string, string> {
  return fault.kind === 'rate_limit' && fault.retryAfterSeconds !== undefined
    ? { 'retry-after': String(fault.retryAfterSeconds) }
    : {};
}

const modelOf = (req: RecordedRequest | null): string =>
  typeof req?.body?.model === 'string' ? req.body.model : 'unknown-model';

/** Masks a key the way OpenAI echoes it: `sk-fake****1234`. */
export function maskKey(key: string | null): string {
  if (!key) return '';
  if (key.length <= 8) return '****';
  return `${key.slice(0, Math.min(7, key.length - 4))}****${key.slice(-4)}`;
}

export function anthropicPlainError(status: number, type: string, message: string, requestId: string): HttpReply {
  return { status, headers: { ...JSON_TYPE }, body: JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }) };
}

export function openaiPlainError(status: number, type: string, message: string): HttpReply {
  return { status, headers: { ...JSON_TYPE }, body: JSON.stringify({ error: { message, type, param: null, code: null } }) };
}

export function anthropicHttpError(fault: HttpFault, req: RecordedRequest | null, requestId: string): HttpReply {
  if (fault.kind === 'http') return rawHttp(fault);
  if (fault.kind === 'unavailable_html') {
    return { status: 503, headers: { 'content-type': 'text/html' }, body: PROXY_503_HTML };
  }
  const table: Record<Exclude<HttpFault['kind'], 'http' | 'unavailable_html'>, [number, string, string]> = {
    rate_limit: [
      429,
      'rate_limit_error',
      'This request would exceed the rate limit for your organization (org-fake) of 30,000 input tokens per minute. ' +
        'For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for ' +
        'current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
    ],
    overloaded: [529, 'overloaded_error', 'Overloaded'],
    server_error: [500, 'api_error', 'Internal server error'],
    auth: [401, 'authentication_error', 'invalid x-api-key'],
    billing: [
      402,
      'billing_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    ],
    context_overflow: [400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'],
    not_found: [404, 'not_found_error', `model: ${modelOf(req)}`],
  };
  const [status, type, message] = table[fault.kind];
  const headers: Record<string, string> = { ...JSON_TYPE, ...retryAfter(fault) };
  if (fault.kind === 'rate_limit') {
    headers['anthropic-ratelimit-input-tokens-limit'] = '30000';
    headers['anthropic-ratelimit-input-tokens-remaining'] = '0';
    headers['anthropic-ratelimit-input-tokens-reset'] = new Date(Date.now() + 60_000).toISOString();
  }
  if (fault.kind === 'billing') headers['x-should-retry'] = 'false';
  return {
    status,
    headers,
    body: JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId }),
  };
}

export function openaiHttpError(fault: HttpFault, req: RecordedRequest | null, key: string | null): HttpReply {
  if (fault.kind === 'http') return rawHttp(fault);
  if (fault.kind === 'unavailable_html') {
    return { status: 503, headers: { 'content-type': 'text/html' }, body: PROXY_503_HTML };
  }
  const model = modelOf(req);
  const table: Record<
    Exclude<HttpFault['kind'], 'http' | 'unavailable_html'>,
    [number, string, string | null, string, string | null]
  > = {
    rate_limit: [
      429,
      'tokens',
      'rate_limit_exceeded',
      `Rate limit reached for ${model} in organization org-fake on tokens per min (TPM): Limit 30000, Used 29937, ` +
        'Requested 385. Please try again in 644ms. Visit https://platform.openai.com/account/rate-limits to learn more.',
      null,
    ],
    overloaded: [
      503,
      'server_error',
      null,
      'That model is currently overloaded with other requests. You can retry your request, or contact us through ' +
        'our help center at help.openai.com if the error persists.',
      null,
    ],
    server_error: [
      500,
      'server_error',
      null,
      'The server had an error while processing your request. Sorry about that!',
      null,
    ],
    auth: [
      401,
      'invalid_request_error',
      'invalid_api_key',
      `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      null,
    ],
    billing: [
      429,
      'insufficient_quota',
      'insufficient_quota',
      'You exceeded your current quota, please check your plan and billing details. For more information on this ' +
        'error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      null,
    ],
    context_overflow: [
      400,
      'invalid_request_error',
      'context_length_exceeded',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. " +
        'Please reduce the length of the messages.',
      'messages',
    ],
    not_found: [
      404,
      'invalid_request_error',
      'model_not_found',
      `The model \`${model}\` does not exist or you do not have access to it.`,
      null,
    ],
  };
  if (req?.path === '/v1/responses') {
    // The Responses API words overflow differently and names `input`.
    table.context_overflow = [
      400,
      'invalid_request_error',
      'context_length_exceeded',
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      'input',
    ];
  }
  const [status, type, code, message, param] = table[fault.kind];
  const headers: Record<string, string> = { ...JSON_TYPE, ...retryAfter(fault) };
  if (fault.kind === 'rate_limit') {
    headers['x-ratelimit-limit-tokens'] = '30000';
    headers['x-ratelimit-remaining-tokens'] = '63';
    headers['x-ratelimit-reset-tokens'] = '644ms';
  }
  if (fault.kind === 'billing') headers['x-should-retry'] = 'false';
  return { status, headers, body: JSON.stringify({ error: { message, type, param, code } }) };
}
