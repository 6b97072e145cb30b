// OpenClaw src/agents/failover/failover-classification.auth-format.cases.ts
import { OC_INTERNAL, SRC, type Group } from './types.js';

const A = 'auth';
const AP = 'auth_permanent';
const F = 'format';

export default [
  {
    src: SRC.billing,
    rows: [
      ['billing-no-anthropic-credentials', 'No credentials found for profile "anthropic:default".', A, OC_INTERNAL('its auth-profile store')],
      ['billing-no-openai-api-key', { provider: 'openai', message: 'No API key found for profile openai.' }, A, OC_INTERNAL('its auth-profile store')],
      [
        'billing-oauth-refresh-failed',
        {
          provider: 'anthropic',
          message:
            'OAuth token refresh failed for anthropic: Failed to refresh OAuth token for anthropic. Please try again or re-authenticate.',
        },
        A,
        OC_INTERNAL('its OAuth refresh'),
      ],
      ['billing-could-not-authenticate-key', 'could not authenticate api key', A],
      ['billing-token-account-id', 'Failed to extract accountId from token', A, OC_INTERNAL('its Codex OAuth token parsing')],
      ['billing-insufficient-permissions', 'You have insufficient permissions for this operation.', A],
      ['billing-missing-scope', 'Missing scopes: model.request', A],
      ['billing-api-key-revoked', 'Your api key has been revoked', AP],
      ['billing-oauth-org-disabled', 'OAuth authentication is currently not allowed for this organization', AP],
      ['billing-chinese-model-denied', '403 您无权访问glm-5.1。', A],
      ['billing-chinese-key-banned', '当前ak因违规请求被禁止访问该模型', A],
      ['billing-chinese-ce-011', '{"success":false,"code":"CE-011"}', A],
      ['billing-chinese-auth-failed', '鉴权失败，请检查API Key', A],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      ['matches-zai-1113', { provider: 'zai', message: '{"code":1113,"message":"invalid api endpoint or credentials"}' }, A],
      [
        'matches-google-invalid-key',
        {
          provider: 'google',
          message:
            'Google Generative AI API error (400): API key not valid. Please pass a valid API key. [code=INVALID_ARGUMENT]',
        },
        A,
      ],
      ['matches-google-api-key-invalid-code', { provider: 'google', message: '{"code":"API_KEY_INVALID"}' }, A],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-html-401',
        {
          status: 401,
          message: '<!doctype html><html><head><title>401 Unauthorized</title></head><body><h1>Unauthorized</h1></body></html>',
        },
        A,
      ],
      [
        'patterns-html-403',
        { status: 403, message: '<!doctype html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>' },
        A,
      ],
    ],
  },
  {
    src: SRC.structured,
    rows: [
      ['structured-403-quota-without-hook', { provider: 'demo-provider', status: 403, code: 'PROVIDER_QUOTA_EXHAUSTED', message: 'Forbidden' }, A],
      ['structured-403-rate-without-hook', { provider: 'demo-provider', status: 403, code: 'PROVIDER_RATE_LIMITED', message: 'Forbidden' }, A],
      ['structured-message-prefix-403', { provider: 'demo-provider', message: '403 concurrency limit breached' }, A],
    ],
  },
  {
    src: SRC.http,
    rows: [
      ['http-invalid-api-key', { status: 401, message: 'Invalid API key' }, A],
      [
        'http-invalid-client-secret',
        { status: 400, code: 'invalid_request', message: 'AADSTS7000215: Invalid client secret provided.' },
        F,
        { ours: 'auth', why: 'an invalid client secret is a rejected credential: rotate the key, do not retry the same one' },
      ],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-openai-auth', { provider: 'openai', message: 'OpenAI API error (401): Invalid authentication credentials' }, A],
      [
        'retry-azure-org-auth',
        {
          provider: 'azure-openai',
          message: 'Azure OpenAI API error (403): OAuth authentication is currently not allowed for this organization',
        },
        AP,
      ],
    ],
  },
  {
    src: SRC.errors,
    rows: [
      [
        'errors-claude-cli-logged-out',
        { provider: 'claude-cli', message: 'Not logged in · Please run /login' },
        A,
        { na: 'the Claude CLI backend; we call provider APIs only' },
      ],
    ],
  },
  {
    src: SRC.xai,
    rows: [
      [
        'xai-invalid-api-key',
        {
          provider: 'xai',
          message:
            '400 {"code":"Client specified an invalid argument","error":"Incorrect API key provided: xa***en. You can obtain an API key from https://console.x.ai."}',
        },
        A,
      ],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-invalid-api-key-code', 'invalid_api_key', A],
      ['billing-permission-error', 'permission_error', A],
      ['billing-reauthenticate', 'Please re-authenticate to continue.', A],
      ['billing-validate-credentials', 'could not validate credentials', A],
      ['billing-http401-invalid-key', 'HTTP 401: invalid_api_key', A],
      ['billing-http410-authentication', 'HTTP 410: authentication failed', A],
      ['billing-api-error-invalid-key', '{"type":"error","error":{"type":"api_error","message":"invalid api key"}}', A],
      ['billing-api-error-unauthorized', '{"type":"error","error":{"type":"api_error","message":"unauthorized"}}', A],
      ['billing-api-error-permission', '{"type":"error","error":{"type":"api_error","message":"permission_error"}}', A],
      ['billing-chinese-no-access', '无权访问该模型', A],
      ['billing-chinese-authentication', '认证失败', A],
      ['billing-chinese-key-invalid', '密钥无效', A],
      ['billing-key-disabled', 'key has been disabled', AP],
      ['billing-account-deactivated', 'account has been deactivated', AP],
      [
        'billing-api-error-org-auth',
        '{"type":"error","error":{"type":"api_error","message":"permission_error: OAuth authentication is currently not allowed for this organization"}}',
        AP,
      ],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      ['matches-invalid-api-key-error', 'invalid_api_key_error', A],
      ['matches-api-key-is-invalid', 'API key is invalid', A],
      ['matches-api-key-invalid-error-code', { message: '{"code":"API_KEY_INVALID_ERROR"}', provider: 'google' }, A],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-html-407',
        {
          status: 407,
          message:
            '<!doctype html><html><head><title>407 Proxy Authentication Required</title></head><body><h1>Proxy Authentication Required</h1></body></html>',
        },
        A,
      ],
    ],
  },
  {
    src: SRC.structured,
    rows: [
      ['structured-nested-quota-without-hook', { provider: 'demo-provider', status: 403, errorType: 'PROVIDER_QUOTA_EXHAUSTED', message: 'Forbidden' }, A],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-invalid-request-format', 'invalid request format', F],
      [
        'billing-prefill-unsupported',
        'This model does not support assistant message prefill. The conversation must end with a user message.',
        F,
      ],
      ['billing-pattern-string', 'string should match pattern', F],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      [
        'matches-harness-provider',
        'Requested agent harness "codex" does not support openai/gpt-5.3-codex (provider is not one of: codex).',
        F,
        OC_INTERNAL('its agent-harness selection'),
      ],
    ],
  },
  {
    src: SRC.structured,
    rows: [
      [
        'structured-invalid-request-raw',
        {
          provider: 'anthropic',
          message:
            '{"type":"error","error":{"type":"invalid_request_error","message":"messages.27.content.1: thinking blocks cannot be modified"}}',
        },
        F,
      ],
      [
        'structured-invalid-request-typed',
        { provider: 'anthropic', errorType: 'invalid_request_error', message: 'thinking blocks cannot be modified' },
        F,
      ],
      [
        'structured-invalid-signature',
        {
          provider: 'anthropic',
          message:
            '{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.1: Invalid `signature` in `thinking` block"}}',
        },
        F,
      ],
      [
        'structured-invalid-signature-carrier',
        {
          provider: 'anthropic',
          message:
            'Validation error: The model returned the following errors: {"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.1: Invalid `signature` in `thinking` block"}}',
        },
        F,
      ],
    ],
  },
  {
    src: SRC.openRouter,
    rows: [['openrouter-image-input', { provider: 'openrouter', status: 404, message: 'No endpoints found that support image input' }, F]],
  },
  {
    src: SRC.bedrock,
    rows: [
      [
        'bedrock-deprecated-temperature',
        {
          provider: 'amazon-bedrock',
          message:
            'ValidationException: The model returned the following errors: {"type":"error","error":{"type":"invalid_request_error","message":"`temperature` is deprecated for this model."}}',
        },
        null,
      ],
    ],
  },
  {
    src: SRC.billing,
    rows: [['billing-context-reasoning-required', '400 Reasoning is mandatory for this endpoint and cannot be disabled.', F]],
  },
  {
    src: SRC.errors,
    rows: [
      [
        'errors-invalid-request-json-syntax',
        {
          provider: 'anthropic',
          message:
            '{"type":"error","error":{"type":"invalid_request_error","message":"Expected value in JSON at position 12 for messages.0.content"}}',
        },
        F,
      ],
    ],
  },
  {
    src: SRC.http,
    rows: [
      [
        'http-quota-normalized',
        {
          status: 429,
          code: 'quota_exceeded',
          message: 'Provider API error (429): Quota exceeded [code=quota_exceeded] [request_id=req_123]',
        },
        'rate_limit',
      ],
      [
        'http-legacy-bad-request-normalized',
        {
          status: 400,
          code: 'invalid_request',
          message: 'Legacy provider error (HTTP 400): Bad request [code=invalid_request] [request_id=req_legacy]',
        },
        F,
      ],
    ],
  },
] satisfies readonly Group[];
