// OpenClaw src/agents/failover/failover-classification.structured-misc.cases.ts
import { HOOKS_OFF, OC_INTERNAL, SRC, VIA_LIKELY, type Group, type Signal } from './types.js';

/** OpenClaw: a bare provider code with an empty message, its provider plugin off → null. We read the code. */
const hooksOff = (id: string, src: string, signal: Signal, ours: 'rate_limit' | 'server_error' | 'billing' | 'timeout' | 'overloaded') =>
  ({ src, rows: [[id, signal, null, { ours, why: HOOKS_OFF }]] }) as const;

const T = 'timeout';

export default [
  {
    src: SRC.billing,
    rows: [
      [
        'billing-image-dimension',
        {
          provider: 'anthropic',
          message:
            '400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.84.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels"}}',
        },
        'format',
      ],
      ['billing-image-size', 'image exceeds 5 MB maximum', null],
      ['billing-malformed-function-call', 'Unhandled stop reason: MALFORMED_FUNCTION_CALL', null],
      ['billing-bare-400', '400 status code (no body)', null],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      [
        'matches-google-invalid-argument',
        {
          provider: 'google',
          message: 'Google Generative AI API error (400): Request contains an invalid argument. [code=INVALID_ARGUMENT]',
        },
        null,
      ],
    ],
  },
  { src: SRC.patterns, rows: [['patterns-bedrock-generic-model-not-ready', 'model is not ready', null]] },
  hooksOff('structured-rate-limit-type-without-hook', SRC.structured, { provider: 'anthropic', errorType: 'rate_limit_error', message: '' }, 'rate_limit'),
  hooksOff('structured-api-error-type-without-hook', SRC.structured, { provider: 'anthropic', errorType: 'api_error', message: '' }, 'server_error'),
  hooksOff('structured-non-owner-server-code', SRC.structured, { provider: 'google', code: 'SERVER_ERROR', message: '' }, 'server_error'),
  hooksOff('structured-non-owner-insufficient-quota', SRC.structured, { provider: 'anthropic', code: 'INSUFFICIENT_QUOTA', message: '' }, 'billing'),
  { src: SRC.http, rows: [['http-bad-request', { status: 400, code: 'invalid_request', message: 'Bad request' }, 'format']] },
  {
    src: SRC.retry,
    rows: [['retry-openai-model-id-400', { provider: 'openai', message: 'OpenAI API error (400): 400 Model Id [gpt-5.4-nano] not found' }, 'model_not_found']],
  },
  {
    src: SRC.ollama,
    rows: [['ollama-malformed-tool-arguments', { provider: 'ollama', message: 'Ollama returned malformed tool arguments' }, null]],
  },
  { src: SRC.xai, rows: [['xai-forbidden-generic', { provider: 'xai', message: '403 Forbidden' }, 'auth']] },
  {
    src: SRC.billing,
    rows: [
      ['billing-context-compaction-auto', 'auto-compaction failed due to context overflow', null, OC_INTERNAL('its compaction failure')],
      [
        'billing-context-compaction-window',
        'Summarization failed: context window exceeded for this request',
        null,
        OC_INTERNAL('its compaction failure'),
      ],
      ['billing-context-model-window-request', 'Model context window is 128k tokens, you requested 256k tokens', null, VIA_LIKELY],
      ['billing-context-window-requested', 'Context window exceeded: requested 12000 tokens', null, VIA_LIKELY],
      ['billing-context-prompt-large', 'Prompt too large for this model', null, VIA_LIKELY],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      [
        'retry-system-unexpected',
        'The system encountered an unexpected error. Try your request again.',
        null,
        { ours: 'server_error', why: 'the provider asks for a retry of its own failure: back off and retry, then fall back' },
      ],
      [
        'retry-temporary-provider',
        'Temporary provider failure; please retry your request.',
        null,
        { ours: 'server_error', why: 'the provider asks for a retry of its own failure: back off and retry, then fall back' },
      ],
      [
        'retry-socket-closed',
        'The socket connection was closed unexpectedly by fetch',
        null,
        { ours: T, why: 'a closed connection is a transport failure: retry, then fall back' },
      ],
      ['retry-connection-refused', 'connection refused', null, { ours: T, why: 'a refused connection is a transport failure: retry, then fall back' }],
      ['retry-connection-lost', 'connection lost', null, { ours: T, why: 'a lost connection is a transport failure: retry, then fall back' }],
      [
        'retry-other-side-closed',
        'other side closed',
        null,
        { ours: T, why: "undici's message for a socket the server closed: a transport failure" },
      ],
      [
        'retry-reset-before-headers',
        'upstream reset before headers',
        null,
        { ours: T, why: 'a proxy reporting an upstream reset is a transport failure' },
      ],
      ['retry-websocket-closed', 'WebSocket closed unexpectedly', null, { ours: T, why: 'a transport failure: retry, then fall back' }],
      ['retry-websocket-error', 'WebSocket error', null, { ours: T, why: 'a transport failure: retry, then fall back' }],
      [
        'retry-anthropic-message-stop',
        'stream ended before message_stop',
        null,
        { ours: T, why: 'our Anthropic stream reports a cut-off stream this way: retry, then fall back' },
      ],
      [
        'retry-http2-no-response',
        'HTTP2 request did not get a response',
        null,
        { ours: T, why: 'a transport failure: retry, then fall back' },
      ],
      ['retry-delay', 'retry delay 1000ms', null],
      [
        'retry-ended-without-terminal-response',
        'provider request ended without a terminal response',
        null,
        { ours: T, why: 'a stream that ends before its final event is a dropped connection: retry, then fall back' },
      ],
      [
        'retry-rate-limit-hyphen',
        'rate-limit reached',
        null,
        { ours: 'rate_limit', why: '"rate-limit" is the same words as "rate limit"' },
      ],
    ],
  },
  {
    src: SRC.errors,
    rows: [['errors-json-parse-position', "Expected ',' or '}' after property value in JSON at position 334 (line 1 column 335)", null]],
  },
  {
    src: SRC.http,
    rows: [
      ['http-provider-catalog-malformed', 'Provider catalog failed: malformed JSON response', null],
      ['http-provider-json-malformed', 'Provider JSON failed: malformed JSON response', null],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-image-dimensions', 'Image dimensions 1504x1504 exceed the maximum allowed size', null],
      ['retry-image-width', 'Image width 500 exceeds the maximum allowed size', null],
    ],
  },
  hooksOff('structured-openai-internal-non-owner', SRC.structured, { provider: 'openai', code: 'INTERNAL', message: '' }, 'server_error'),
  hooksOff('structured-openai-deadline-non-owner', SRC.structured, { provider: 'openai', code: 'DEADLINE_EXCEEDED', message: '' }, T),
  hooksOff('structured-anthropic-unavailable-non-owner', SRC.structured, { provider: 'anthropic', code: 'UNAVAILABLE', message: '' }, 'overloaded'),
  hooksOff('structured-google-api-error-non-owner', SRC.structured, { provider: 'google', code: 'API_ERROR', message: '' }, 'server_error'),
  hooksOff('structured-google-rate-limit-error-non-owner', SRC.structured, { provider: 'google', code: 'RATE_LIMIT_ERROR', message: '' }, 'rate_limit'),
  { src: SRC.structured, rows: [['structured-generic-sdk-type', { provider: 'demo-provider', message: 'unclassified provider failure' }, null]] },
  hooksOff('anthropic-rate-limit-error-type-core-fallback', SRC.anthropic, { provider: 'anthropic', errorType: 'rate_limit_error', message: '' }, 'rate_limit'),
  hooksOff('anthropic-api-error-type-core-fallback', SRC.anthropic, { provider: 'anthropic', errorType: 'api_error', message: '' }, 'server_error'),
  hooksOff('anthropic-rate-limit-code-core-fallback', SRC.anthropic, { provider: 'anthropic', code: 'RATE_LIMIT_ERROR', message: '' }, 'rate_limit'),
  hooksOff('anthropic-api-error-code-core-fallback', SRC.anthropic, { provider: 'anthropic', code: 'API_ERROR', message: '' }, 'server_error'),
  hooksOff('openai-server-code-core-fallback', SRC.openai, { provider: 'openai', code: 'SERVER_ERROR', message: '' }, 'server_error'),
  hooksOff('openai-insufficient-quota-code-core-fallback', SRC.openai, { provider: 'openai', code: 'INSUFFICIENT_QUOTA', message: '' }, 'billing'),
  hooksOff('google-unavailable-code-core-fallback', SRC.google, { provider: 'google', code: 'UNAVAILABLE', message: '' }, 'overloaded'),
  hooksOff('google-deadline-code-core-fallback', SRC.google, { provider: 'google-vertex', code: 'DEADLINE_EXCEEDED', message: '' }, T),
  hooksOff('google-internal-code-core-fallback', SRC.google, { provider: 'google-antigravity', code: 'INTERNAL', message: '' }, 'server_error'),
  {
    src: SRC.anthropic,
    rows: [
      [
        'anthropic-claude-cli-rate-limit-type-core-fallback',
        { provider: 'claude-cli', errorType: 'rate_limit_error', message: '' },
        null,
        { na: 'the Claude CLI backend; we call provider APIs only' },
      ],
      [
        'anthropic-claude-cli-api-error-type-core-fallback',
        { provider: 'claude-cli', errorType: 'api_error', message: '' },
        null,
        { na: 'the Claude CLI backend; we call provider APIs only' },
      ],
    ],
  },
  hooksOff(
    'anthropic-rate-limit-type-api-code-core-fallback',
    SRC.anthropic,
    { provider: 'anthropic', errorType: 'rate_limit_error', code: 'API_ERROR', message: '' },
    'rate_limit',
  ),
  hooksOff(
    'anthropic-insufficient-quota-code-core-fallback',
    SRC.anthropic,
    { provider: 'anthropic', errorType: 'UNKNOWN_ERROR', code: 'INSUFFICIENT_QUOTA', message: '' },
    'billing',
  ),
  hooksOff('azure-openai-server-code-core-fallback', SRC.openai, { provider: 'azure-openai', code: 'SERVER_ERROR', message: '' }, 'server_error'),
  hooksOff('azure-openai-insufficient-quota-code-core-fallback', SRC.openai, { provider: 'azure-openai', code: 'INSUFFICIENT_QUOTA', message: '' }, 'billing'),
  hooksOff(
    'azure-openai-responses-server-code-core-fallback',
    SRC.openai,
    { provider: 'azure-openai-responses', code: 'SERVER_ERROR', message: '' },
    'server_error',
  ),
  hooksOff(
    'azure-openai-responses-insufficient-quota-code-core-fallback',
    SRC.openai,
    { provider: 'azure-openai-responses', code: 'INSUFFICIENT_QUOTA', message: '' },
    'billing',
  ),
  hooksOff('openai-api-error-code-core-fallback', SRC.openai, { provider: 'openai', code: 'API_ERROR', message: '' }, 'server_error'),
  hooksOff('google-gemini-cli-unavailable-core-fallback', SRC.google, { provider: 'google-gemini-cli', code: 'UNAVAILABLE', message: '' }, 'overloaded'),
  hooksOff('google-insufficient-quota-core-fallback', SRC.google, { provider: 'google-vertex', code: 'INSUFFICIENT_QUOTA', message: '' }, 'billing'),
  {
    src: SRC.ollama,
    rows: [
      [
        'ollama-cloud-incomplete-stream',
        { provider: 'ollama-cloud', message: 'Ollama API stream ended without a final response' },
        null,
        { ours: T, why: 'a stream that ends before its final event is a dropped connection: retry, then fall back' },
      ],
    ],
  },
] satisfies readonly Group[];
