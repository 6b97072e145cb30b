// OpenClaw src/agents/failover/failover-classification.overflow-server-misc.cases.ts
import { OC_INTERNAL, SRC, type Group, type Note } from './types.js';

const T = 'timeout';
const OV = 'overloaded';
const SESSION: Note = { na: 'session_expired is for CLI backends that keep a provider-side session (claude-cli, Codex); we have none' };

export default [
  {
    src: SRC.billing,
    rows: [
      ['billing-deadline-exceeded', 'deadline exceeded', T],
      ['billing-no-stream-chunks', 'request ended without sending any chunks', T],
      ['billing-connection-error', 'Connection error.', T],
      ['billing-fetch-failed', 'fetch failed', T],
      ['billing-econnrefused', 'network error: ECONNREFUSED', T],
      ['billing-enotfound', 'dial tcp: lookup api.example.com: no such host (ENOTFOUND)', T],
      ['billing-dns-eai-again', 'temporary dns failure EAI_AGAIN', T],
      [
        'billing-cloudflare-521',
        '521 <!DOCTYPE html><html><head><title>Web server is down</title></head><body>Cloudflare</body></html>',
        T,
      ],
      [
        'billing-openai-retry-guidance',
        {
          provider: 'openai',
          message:
            'An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists. Please include the request ID synthetic-provider-request-001 in your message.',
        },
        T,
      ],
      ['billing-shared-runtime-unknown-error', 'An unknown error occurred', T],
      ['billing-generic-410', 'HTTP 410 Gone', T],
      ['billing-gemini-malformed-response', { provider: 'google', message: 'Unhandled stop reason: MALFORMED_RESPONSE' }, T],
      ['billing-operation-aborted', 'The operation was aborted', T],
      ['billing-stream-aborted', 'stream was aborted', T],
      ['billing-etimedout', 'Error: connect ETIMEDOUT 10.0.0.1:443', T],
      ['billing-ehostunreach', 'Error: connect EHOSTUNREACH 10.0.0.1:443', T],
      ['billing-epipe', 'Error: write EPIPE', T],
      ['billing-provider-network-finish-reason', 'Provider finish_reason: network_error', T],
      ['billing-undici-socket', 'Error: UND_ERR_SOCKET other side closed', T],
      ['billing-undici-connect-timeout', 'UND_ERR_CONNECT_TIMEOUT', T],
      ['billing-request-failed-retries', 'Request failed after repeated internal retries.', T, OC_INTERNAL('its retry-limit message')],
      [
        'billing-google-internal-500',
        {
          provider: 'google',
          message: 'provider=google model=gemini-3.1-flash-lite-preview got status: INTERNAL upstream failure code:500',
        },
        T,
      ],
      ['billing-mini-max-520', '{"type":"api_error","message":"unknown error, 520 (1000)"}', T],
      [
        'billing-anthropic-unexpected-error',
        {
          provider: 'anthropic',
          message: '{"type":"error","error":{"type":"api_error","message":"An unexpected error occurred while processing the response"}}',
        },
        T,
      ],
      [
        'billing-zhipu-network-1234',
        {
          provider: 'zai',
          message:
            'LLM error 1234: 网络错误，错误id：202603281427587491f4467f1c4712，请联系客服。 (request_id: 202603281427587491f4467f1c4712)',
        },
        T,
      ],
      ['billing-chinese-network-abnormal', '网络异常，请稍后重试', T],
      ['billing-chinese-service-busy', '服务繁忙，请稍后再试', T],
      ['billing-chinese-system-error', '系统错误，请稍后重试', T],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-cloudflare-html-502',
        {
          status: 502,
          message:
            '<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>cloudflare-nginx</p></body></html>',
        },
        T,
      ],
      [
        'patterns-cloudflare-html-503',
        {
          status: 503,
          message:
            '<!doctype html><html><head><title>503</title></head><body><h1>Service Unavailable</h1><p>Please try again. Rate limit exceeded.</p></body></html>',
        },
        T,
      ],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-explicit-retry-guidance', 'An error occurred while processing your request. You can retry your request.', T],
      [
        'retry-openai-500',
        { provider: 'openai', message: 'OpenAI API error (500): 500 The server had an error while processing your request. Sorry about that!' },
        null,
        { ours: 'server_error', why: 'a 500 is a server error wherever the status appears; OpenClaw reads no status out of "API error (500)" wrappers' },
      ],
      ['retry-azure-502', { provider: 'azure-openai', message: 'Azure OpenAI API error (502): Bad gateway from upstream' }, T],
      ['retry-mistral-503', { provider: 'mistral', message: 'Mistral API error (503): service temporarily unavailable' }, OV],
      ['retry-provider-504', 'Provider API error (504): gateway timeout', T],
    ],
  },
  { src: SRC.http, rows: [['http-provider-503', { status: 503, message: 'Provider API error (503)' }, T]] },
  { src: SRC.openRouter, rows: [['openrouter-network-finish', { provider: 'openrouter', message: 'Provider finish_reason: network_error' }, T]] },
  {
    src: SRC.errors,
    rows: [
      [
        'errors-malformed-streaming-fragment',
        'OpenClaw transport error: malformed_streaming_fragment',
        null,
        OC_INTERNAL('its own transport error'),
      ],
    ],
  },
  { src: SRC.http, rows: [['http-provider-timeout', 'provider body timed out 50', T]] },
  {
    src: SRC.billing,
    rows: [
      ['billing-status-503', '503 Service Unavailable', OV],
      ['billing-llm-service-unavailable', 'LLM error: service unavailable', OV],
      ['billing-api-error-unavailable', '{"type":"error","error":{"type":"api_error","message":"Service temporarily unavailable"}}', OV],
      ['billing-status-499', '499 Client Closed Request', T],
      ['billing-status-500', '500 Internal Server Error', T],
      ['billing-status-502', '502 Bad Gateway', T],
      ['billing-status-504', '504 Gateway Timeout', T],
      ['billing-503-database', '503 Internal Database Error', T],
      ['billing-stop-abort', 'Unhandled stop reason: abort', T],
      ['billing-stream-closed', 'stream was closed', T],
      ['billing-esockettimedout', 'Error: connect ESOCKETTIMEDOUT 10.0.0.1:443', T],
      ['billing-enetunreach', 'Error: connect ENETUNREACH 10.0.0.1:443', T],
      ['billing-enetreset', 'Error: read ENETRESET', T],
      ['billing-ehostdown', 'Error: connect EHOSTDOWN 192.168.1.1:443', T],
      ['billing-zai-network-stop', { message: 'Unhandled stop reason: network_error', provider: 'zai' }, T],
      ['billing-provider-abort', 'Provider finish_reason: abort', T],
      ['billing-provider-malformed', 'Provider finish_reason: malformed_response', T],
      ['billing-undici-terminated', 'terminated', T],
      ['billing-stream-read-error', 'stream_read_error', T],
      ['billing-undici-headers-timeout', 'UND_ERR_HEADERS_TIMEOUT', T],
      ['billing-undici-body-timeout', 'UND_ERR_BODY_TIMEOUT', T],
      ['billing-undici-aborted', 'UND_ERR_ABORTED', T],
      ['billing-undici-content-length', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', T],
      ['billing-request-failed', 'Request failed', T],
      ['billing-api-error-internal', '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}', T],
      [
        'billing-zhipu-network-json',
        { message: '{"error":{"code":"1234","message":"网络错误，错误id：abc123，请联系客服。"},"request_id":"abc123"}', provider: 'zai' },
        T,
      ],
      ['billing-chinese-connect-timeout', '连接超时', T],
      ['billing-chinese-request-timeout', '请求超时，请重试', T],
      ['billing-chinese-service-unavailable', '服务暂时不可用', T],
      ['billing-chinese-connection-error', '连接错误', T],
      ['billing-chinese-internal', '内部错误', T],
      ['billing-chinese-server', '服务器错误', T],
      ['billing-chinese-server-internal', '服务器内部错误', T],
      ['billing-chinese-system-busy', '系统繁忙', T],
      ['billing-chinese-system-abnormal', '系统异常', T],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-billing-service', '503 billing service unavailable; please retry your request', OV],
      ['retry-subscription-service', '503 subscription service unavailable while checking quota', OV],
      ['retry-503-retry-after', '503 Service Unavailable; Retry-After: 120 seconds', OV],
      ['retry-http-500', 'HTTP 500 temporary provider response', T],
      ['retry-503', '503: temporary provider response', T],
      ['retry-524', '524 status code (no body)', T],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-cloudflare-challenge',
        {
          status: 403,
          message:
            '<!doctype html><html><head><title>403 Forbidden</title></head><body>Enable JavaScript and cookies to continue.<p>Please stand by, while we are checking your browser...</p></body></html>',
        },
        'auth',
      ],
      [
        'patterns-cloudflare-cdn-cgi',
        {
          status: 403,
          message:
            '<!doctype html><html><head><title>403 Forbidden</title></head><body><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page"></script><p>Checking your browser...</p></body></html>',
        },
        'auth',
      ],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      [
        'billing-openai-structured-server-error',
        {
          provider: 'openai',
          message:
            'Codex error: {"type":"error","error":{"type":"server_error","code":"server_error","message":"An error occurred while processing your request."},"sequence_number":2}',
        },
        'server_error',
      ],
      ['billing-provider-finish-error', 'Provider finish_reason: error', 'server_error'],
    ],
  },
  { src: SRC.matches, rows: [['matches-provider-finish-error', 'Provider finish_reason: error', 'server_error']] },
  { src: SRC.openRouter, rows: [['openrouter-finish-error', { provider: 'openrouter', message: 'Provider finish_reason: error' }, 'server_error']] },
  {
    src: SRC.ollama,
    rows: [
      [
        'ollama-incomplete-stream',
        { provider: 'ollama', message: 'Ollama API stream ended without a final response' },
        null,
        { ours: 'timeout', why: 'a stream that ends before its final event is a dropped connection: retry, then fall back' },
      ],
    ],
  },
  {
    src: SRC.patterns,
    rows: [['patterns-groq-deactivated', { provider: 'groq', message: 'model_is_deactivated: this model has been deactivated' }, 'model_not_found']],
  },
  {
    src: SRC.openRouter,
    rows: [['openrouter-missing-model', { provider: 'openrouter', status: 404, message: 'No endpoints found for missing/model.' }, 'model_not_found']],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-mistral-model-not-found', { provider: 'mistral', message: 'Mistral API error (404): model not found' }, 'model_not_found'],
      ['retry-gpt-preview-not-found', 'model gpt-5.5-preview-0429 not found', 'model_not_found'],
      ['retry-model-preview-not-found', 'model model-x-500-preview not found', 'model_not_found'],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-session-not-found', 'HTTP 410: session not found', 'session_expired', SESSION],
      ['billing-claude-conversation-missing', { provider: 'claude-cli', message: 'No conversation found with session ID: abc123' }, 'session_expired', SESSION],
    ],
  },
] satisfies readonly Group[];

export { SESSION };
