// Cases of OpenClaw's classifier unit tests that the golden corpus does not already hold (same input skipped):
// src/agents/failover/{classify, failover-classification.corpus, classify.xai-transient-auth,
// provider-429-precedence}.test.ts. Tests of provider plugins, user copy and reply codes are left out.
import { OC_INTERNAL, SRC, X, type Group, type Row, type Signal } from './types.js';

const NOT_CHAT = { na: "wording of OpenClaw's non-chat subsystems (model pulls, media generation)" } as const;
const validation = (status: number): Signal => ({
  status,
  message: `${status} Unknown parameter: 'logprobs'`,
  errorType: 'invalid_request_error',
  code: 'unknown_parameter',
});
const unsupported = (parameter: string) => ({
  type: 'invalid_request_error',
  code: 'unknown_parameter',
  message: `Unsupported parameter: ${parameter}`,
});

const corpusTestRows: Row[] = [
  ...[503, 521, 529].map(
    (status): Row => [
      `drift-body-only-${status}`,
      { message: 'Provider rejected request', details: [`${status} status code (no body)`] },
      status === 529 ? 'overloaded' : 'server_error',
    ],
  ),
  ['drift-availability-prose', 'The model is not available. Please try again later.', null],
  ...[504, 522, 524].map(
    (status): Row => [`drift-availability-${status}`, { status, message: 'The model is not available. Please try again later.' }, 'timeout'],
  ),
  ...[500, 502, 503, 520, 521, 523].map(
    (status): Row => [`drift-availability-${status}`, { status, message: 'The model is not available. Please try again later.' }, 'server_error'],
  ),
  [
    'drift-availability-overloaded-json',
    '{"type":"error","error":{"type":"overloaded_error","message":"The model is not available due to high demand."}}',
    'overloaded',
  ],
  ['drift-availability-server-type', { errorType: 'server_error', message: 'The model is not available.' }, 'server_error'],
  [
    'drift-availability-overloaded-details',
    { message: 'The model is not available.', details: ['{"error":{"type":"overloaded_error","message":"Overloaded"}}'] },
    'overloaded',
  ],
  [
    'drift-529-json',
    { status: 529, message: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    'overloaded',
  ],
  [
    'drift-500-server-json',
    { status: 500, message: '{"error":{"type":"server_error","message":"An error occurred while processing your request."}}' },
    'server_error',
  ],
  ['drift-ollama-pull', 'Failed to download gemma4:e2b: pull stream ended before success', null, NOT_CHAT],
  ['drift-openrouter-music', 'OpenRouter music generation stream ended before completion', null, NOT_CHAT],
  ['drift-minimax-music', 'MiniMax music generation stream ended without completion', null, NOT_CHAT],
  ['drift-sse-reader', 'SSE stream ended before next event', null, NOT_CHAT],
  ['drift-opencode-go', 'opencode-go stream ended without a terminal event', null, NOT_CHAT],
  ['drift-embedded-429', 'request id req-4291 failed', null],
  ['drift-bare-503', '503 service unavailable', 'overloaded'],
  ['drift-429-overloaded-words', '429 Too Many Requests: model overloaded', 'rate_limit'],
  [
    'drift-long-billing-json',
    JSON.stringify({ error: { message: 'insufficient credits', type: 'account_balance_error', details: X(600) } }),
    'billing',
  ],
  ['drift-403-permissions', '403 Forbidden: insufficient permissions', 'auth'],
  [
    'drift-429-generic',
    { status: 429, message: 'Something went wrong while processing your request. Please try again.' },
    'rate_limit',
  ],
  [
    'drift-401-missing-bearer',
    {
      status: 401,
      message:
        'unexpected status 401 Unauthorized: Missing bearer or basic authentication in header, url: https://api.openai.com/v1/responses',
    },
    'auth',
  ],
  ['drift-unknown-model', 'Unknown model: openai/gpt-5.3-codex', 'model_not_found'],
  ...[
    'Custom tool call output is missing for call id: call_live_123.',
    'The number of toolResult blocks at messages.186.content exceeds the number of toolUse blocks of previous turn.',
    '400 Function call turn comes immediately after a user turn or after a function response turn.',
    '400 Incorrect role information',
    'messages: roles must alternate between user and assistant',
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A09q90qw90lq917835lq9.',
  ].map(
    (message, i): Row => [
      `drift-conversation-state-${i + 1}`,
      message,
      'format',
      { ours: 'format', via: 'classifyProviderRequestFacets (conversation-state)' },
    ],
  ),
  [
    'drift-conversation-state-replay',
    'invalid_replay_transcript: OpenAI Responses replay contains dangling_tool_call toolCallId=call_1 at message index 4',
    'format',
    OC_INTERNAL('its Responses replay check'),
  ],
  ['drift-throttling-exception', 'ThrottlingException: Rate exceeded', 'rate_limit'],
  ['drift-throttling-disabled', 'throttling disabled for this account', 'rate_limit'],
];

const classifyTestRows: Row[] = [
  ['402-prose-url-rate-limit', { status: 402, message: 'Prompt tokens limit exceeded. See https://example.invalid/monthly/rate_limit' }, 'billing'],
  ['402-prose-org-spend', { status: 402, message: 'Organization spend limit reached. See https://example.invalid/subscription' }, 'rate_limit'],
  [
    '402-prose-workspace-spend-json',
    { status: 402, message: '{"help":"https://example.invalid/subscription","message":"Workspace spend limit reached"}' },
    'rate_limit',
  ],
  ['402-leading-number-url', '402 records processed. See https://example.invalid/organizations/synthetic/settings/keys', null],
  ['gateway-400-context-window', '400 Your input exceeds the context window of this model', 'context_overflow'],
  ['gateway-413-no-body', '413 status code (no body)', 'context_overflow'],
  ...[404, 500].flatMap((status): Row[] => [
    [`validation-${status}-unknown-parameter`, validation(status), 'format'],
    [
      `validation-${status}-unsupported-parameter-json`,
      `${status} {"error":{"type":"invalid_request_error","message":"Unsupported parameter: logprobs"}}`,
      'format',
    ],
  ]),
  ...['timeout', 'context_length_exceeded'].flatMap((parameter): Row[] => {
    const error = unsupported(parameter);
    return [
      [
        `unsupported-${parameter}-500-signal`,
        {
          status: 500,
          message: `500 ${error.message}`,
          errorType: error.type,
          code: error.code,
          details: [JSON.stringify(error)],
        },
        'format',
      ],
      [`unsupported-${parameter}-502-space`, `502 ${JSON.stringify({ error })}`, 'format'],
      [`unsupported-${parameter}-502-colon`, `502: ${JSON.stringify({ error })}`, 'format'],
    ];
  }),
  ['validation-401', validation(401), 'auth'],
  ['validation-402', validation(402), 'billing'],
  ['validation-429', validation(429), 'rate_limit'],
  ['validation-499', validation(499), 'timeout'],
  ['validation-529', validation(529), 'overloaded'],
  [
    'rejection-400-free-tier',
    {
      status: 400,
      code: 'rate_limit_exceeded',
      message: '400 This prompt is longer than the free tier allows for a single request. Shorten it.',
      details: [
        '{"code":"rate_limit_exceeded","message":"This prompt is longer than the free tier allows for a single request. Shorten it."}',
        'rate_limit_exceeded',
      ],
    },
    'rate_limit',
  ],
  ['rejection-422-rate-code', { status: 422, message: '422 {"error":{"code":"rate_limit_exceeded","message":"Request rejected"}}' }, 'rate_limit'],
  ['rejection-400-resource-exhausted', { status: 400, code: 'RESOURCE_EXHAUSTED', message: '400 provider refusal' }, 'rate_limit'],
  ['throttling-400-concurrent', { status: 400, code: 'ThrottlingException', message: '400 Too many concurrent requests' }, 'rate_limit'],
  ['throttling-400-refusal', { status: 400, code: 'ThrottlingException', message: '400 provider refusal' }, 'rate_limit'],
  ['throttling-429-rejected', { status: 429, code: 'rate_limit_exceeded', message: 'Request rejected' }, 'rate_limit'],
  ['throttling-code-rejected', { code: 'rate_limit_exceeded', message: 'Request rejected' }, 'rate_limit'],
  [
    'throttling-400-details',
    {
      status: 400,
      code: 'rate_limit_exceeded',
      message: '400 Request rejected',
      details: ['{"code":"rate_limit_exceeded","message":"Too many concurrent requests"}'],
    },
    'rate_limit',
  ],
  ['claude-cli-logged-out-no-provider', 'Not logged in · Please run /login', null],
  [
    'oauth-session-expired',
    'Failed to authenticate: OAuth session expired and could not be refreshed',
    'session_expired',
    { na: 'OAuth sessions of CLI backends; we use API keys only' },
  ],
  ['transcript-entry-invalid', 'Invalid session transcript entry: model_change', 'format', OC_INTERNAL('its transcript validation')],
  ['5xx-500-upstream', { status: 500, message: 'upstream failure' }, 'server_error'],
  ...[499, 504, 522, 524].map((status): Row => [`5xx-${status}-upstream`, { status, message: 'upstream failure' }, 'timeout']),
  ['5xx-529-html', '529 <!doctype html><html><head><title>529</title></head><body>Overloaded</body></html>', 'overloaded'],
  ['5xx-529-overloaded', { status: 529, message: 'Overloaded' }, 'overloaded'],
  ['5xx-504-html', '504 <!doctype html><html><head><title>504</title></head><body>Cloudflare</body></html>', 'timeout'],
  ['5xx-502-typed-overloaded', { status: 502, message: '{"error":{"type":"overloaded_error","message":"Overloaded"}}' }, 'overloaded'],
  ['billing-multi-section-prose', '## Payments\nHandle insufficient credits.\n## Plans\nUpgrade your plan.', null],
  ['billing-long-1311', JSON.stringify({ code: 1311, message: 'model not on plan', details: X(700) }), 'billing'],
  [
    'billing-long-invalid-subscription',
    JSON.stringify({ error: { code: 'InvalidSubscription', message: 'Subscription unavailable', details: X(700) } }),
    'billing',
  ],
];

const xaiRows: Row[] = [
  [
    'xai-authentication-required-json',
    { provider: 'xai', message: '401 {"error":"Authentication required"}' },
    'timeout',
    { ours: 'auth', why: "a 401 moves to the next key at once; we do not special-case one provider's transient 401" },
  ],
  [
    'xai-403-refusal',
    { provider: 'xai', message: "403 I can't help with that request." },
    'unclassified',
    { ours: 'auth', why: 'a 403 moves to the next key; refusal wording is no evidence that the key is fine' },
  ],
  ['xai-401-invalid-key', { provider: 'xai', message: '401 Authentication required: API key is invalid' }, 'auth'],
  ['xai-401-revoked', { provider: 'xai', message: '401 Authentication required: key has been revoked' }, 'auth_permanent'],
  ['xai-401-proxy-auth', { provider: 'xai', message: '401 Proxy Authentication Required' }, 'auth'],
  ['openai-401-authentication-required', { provider: 'openai', message: '401 Authentication required' }, 'auth'],
];

const precedenceRows: Row[] = [
  ['429-insufficient-quota-text', { provider: 'custom-route', status: 429, message: 'insufficient_quota' }, 'billing'],
  ['429-too-many-requests', { provider: 'custom-route', status: 429, message: 'Too many requests' }, 'rate_limit'],
  ['429-provider-returned-error', { provider: 'custom-route', status: 429, message: 'Provider returned error' }, 'rate_limit'],
  [
    '429-provider-returned-error-quota-json',
    { provider: 'custom-route', status: 429, message: 'Provider returned error\n{"error":{"code":"insufficient_quota"}}' },
    'billing',
  ],
];

export default [
  { src: SRC.corpusTest, rows: corpusTestRows },
  { src: SRC.classify, rows: classifyTestRows },
  { src: SRC.xaiTransient, rows: xaiRows },
  { src: SRC.precedence429, rows: precedenceRows },
] satisfies readonly Group[];
