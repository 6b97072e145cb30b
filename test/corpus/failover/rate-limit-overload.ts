// OpenClaw src/agents/failover/failover-classification.rate-limit-overload.cases.ts
import { OC_INTERNAL, SRC, type Group } from './types.js';

const RL = 'rate_limit';
const OV = 'overloaded';

export default [
  {
    src: SRC.billing,
    rows: [
      [
        'billing-openai-rate-limit',
        {
          provider: 'openai',
          message:
            'Rate limit reached for gpt-4.1-mini in organization org_test on requests per min. Limit: 3.000000 / min. Current: 3.000000 / min.',
        },
        RL,
      ],
      ['billing-gemini-resource-exhausted', { provider: 'google', message: 'RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).' }, RL],
      ['billing-groq-too-many-requests', { provider: 'groq', message: '429 Too Many Requests: Too many requests were sent in a given timeframe.' }, RL],
      ['billing-model-cooldown', 'model_cooldown: All credentials for model gpt-5 are cooling down', RL, OC_INTERNAL('its own cooldown notice')],
      ['billing-chatgpt-usage-limit', { provider: 'openai', message: 'You have hit your ChatGPT usage limit (plus plan)' }, RL],
      ['billing-bedrock-tokens-per-day', { provider: 'amazon-bedrock', message: 'AWS Bedrock: Too many tokens per day. Please try again tomorrow.' }, RL],
      [
        'billing-zhipu-periodic-limit',
        {
          provider: 'zai',
          message:
            'LLM error 1310: Weekly/Monthly Limit Exhausted. Your limit will reset at 2026-03-06 22:19:54 (request_id: 20260303141547610b7f574d1b44cb)',
        },
        RL,
      ],
      [
        'billing-subscription-quota-refresh',
        '402 You have reached your subscription quota limit. Please wait for automatic quota refresh in the rolling time window, upgrade to a higher plan, or use a Pay-As-You-Go API Key for unlimited access.',
        RL,
      ],
      ['billing-chinese-too-frequent', '请求过于频繁，请稍后重试', RL],
      ['billing-chinese-frequency-limit', '调用频率超限', RL],
      ['billing-chinese-quota-exhausted', '配额已用尽', RL],
      ['billing-chinese-top-up', '额度不足，请充值', RL],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      ['matches-rate-limit', 'rate limit exceeded', RL],
      [
        'matches-zai-1305-429',
        {
          provider: 'zai',
          message:
            '429 status code (exceeded limit)\n{"code":1305,"message":"The service may be temporarily overloaded, please try again later."}',
        },
        RL,
      ],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      ['patterns-bedrock-throttling', { provider: 'amazon-bedrock', message: 'ThrottlingException: Too many requests' }, RL],
      ['patterns-bedrock-concurrency', { provider: 'amazon-bedrock', message: 'ThrottlingException: Too many concurrent requests' }, RL],
      ['patterns-concurrency-limit', 'concurrency limit has been reached', RL],
      ['patterns-concurrency-limit-breached', 'concurrency limit breached', RL],
      ['patterns-concurrency-limit-was-reached', 'concurrency limit was reached', RL],
      ['patterns-cloudflare-workers-quota', 'workers_ai gateway error: quota limit exceeded', RL],
      ['patterns-json-rate-limit', '429 {"error":{"type":"rate_limit_error","message":"Rate limit exceeded"}}', RL],
    ],
  },
  {
    src: SRC.structured,
    rows: [['structured-unstructured-rate-limit', { provider: 'demo-provider', message: 'invalid_api_key' }, 'auth']],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-429-temporary', '429 temporary provider response', RL],
      ['retry-resource-exhausted-worker', 'ResourceExhausted: Worker local total request limit reached', RL],
    ],
  },
  {
    src: SRC.liveAuth,
    rows: [
      ['live-auth-resource-exhausted-spaced', 'resource exhausted', RL],
      ['live-auth-quota-exceeded-code', 'quota_exceeded', RL],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-resource-exhausted-capacity', 'resource_exhausted: transient worker capacity exhausted', RL],
      ['retry-daily-limit', '429 You exceeded your daily request limit. Please try again in 24 hours.', RL],
      ['retry-retry-after-hours', '429 RPM limit exceeded; Retry-After: 2 hours', RL],
      [
        'retry-resource-exhausted-quota',
        '429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric requests per minute; please retry your request',
        RL,
      ],
      [
        'retry-openai-resource-exhausted',
        {
          provider: 'openai',
          message: 'OpenAI API error (429): RESOURCE_EXHAUSTED: Quota exceeded for requests per minute; please retry your request',
        },
        RL,
      ],
    ],
  },
  {
    src: SRC.openRouter,
    rows: [
      [
        'openrouter-stream-rate-limit',
        { provider: 'openrouter', status: 429, errorType: 'rate_limit_exceeded', message: 'Rate limit exceeded' },
        RL,
      ],
    ],
  },
  {
    src: SRC.mantle,
    rows: [
      ['mantle-rate-limit', { provider: 'amazon-bedrock-mantle', message: 'rate_limit exceeded' }, RL],
      ['mantle-429', { provider: 'amazon-bedrock-mantle', message: '429 Too Many Requests' }, RL],
    ],
  },
  {
    src: SRC.xai,
    rows: [
      ['xai-rate-limit-payload', { provider: 'xai', message: '429 {"code":"Some resource has been exhausted","error":"Rate limit exceeded"}' }, RL],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-rate-limit-org-tpd', 'request reached organization TPD rate limit, current: 1506556, limit: 1500000', RL],
      ['billing-rate-limit-too-many', 'too many requests', RL],
      ['billing-rate-limit-account', "This request would exceed your account's rate limit", RL],
      ['billing-rate-limit-429-request', '429 Too Many Requests: request exceeds rate limit', RL],
      ['billing-monthly-spend', { message: 'Monthly spend limit reached.', status: 402 }, RL],
      ['billing-weekly-usage', 'Weekly usage limit exhausted.', RL],
      ['billing-daily-reset', 'Daily limit reached, resets tomorrow.', RL],
      ['billing-org-spend', { message: 'Organization spending limit exceeded.', status: 402 }, RL],
      ['billing-workspace-spend', { message: 'Workspace spend limit reached.', status: 402 }, RL],
      ['billing-org-period', { message: 'Organization limit exceeded for this billing period.', status: 402 }, RL],
      ['billing-monthly-settings', '402 Payment Required: Monthly spend limit reached. Please visit your billing settings.', RL],
      ['billing-http402-rate-limit', 'HTTP 402 Payment Required: rate limit exceeded', RL],
      ['billing-weekly-monthly', 'LLM error: weekly/monthly limit reached', RL],
      ['billing-monthly-limit', 'LLM error: monthly limit reached', RL],
      ['billing-daily-limit', 'LLM error: daily limit exceeded', RL],
      ['billing-chinese-frequency', '频率限制', RL],
      ['billing-chinese-quota-insufficient', '配额不足', RL],
      ['billing-chinese-credit-exhausted', '额度已用尽', RL],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      ['retry-monthly-usage-limit', 'Monthly usage limit reached', RL],
      ['retry-rate-limit-six-hours', 'rate limit reached for requests. Retry after 6h.', RL],
      ['retry-rate-limit-90-minutes', 'rate limit reached; Retry-After: 90 minutes', RL],
      ['retry-429-insufficient-quota-short', '429 insufficient_quota', 'billing'],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-html-429',
        '429 <!doctype html><html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1><p>Rate limit exceeded.</p></body></html>',
        RL,
      ],
    ],
  },
  { src: SRC.xai, rows: [['xai-generic-429', { provider: 'xai', message: '429 Too Many Requests' }, RL]] },
  {
    src: SRC.billing,
    rows: [
      [
        'billing-anthropic-overloaded',
        { provider: 'anthropic', message: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_test"}' },
        OV,
      ],
      [
        'billing-together-overloaded',
        {
          provider: 'together',
          message: '503 Engine Overloaded: The server is experiencing a high volume of requests and is temporarily overloaded.',
        },
        OV,
      ],
      [
        'billing-groq-service-unavailable',
        {
          provider: 'groq',
          message: '503 Service Unavailable: The server is temporarily unable to handle the request due to overloading or maintenance.',
        },
        OV,
      ],
      ['billing-high-demand', 'This model is currently experiencing high demand. Please try again later.', OV],
      ['billing-service-capacity', 'service unavailable due to capacity limits', OV],
      ['billing-json-model-overloaded', '{"error":{"code":503,"message":"The model is overloaded. Please try later","status":"UNAVAILABLE"}}', OV],
      ['billing-529-busy', '529 API is busy', OV],
      ['billing-chinese-overload', '服务过载，请稍后重试', OV],
      ['billing-chinese-high-load', '当前负载过高', OV],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      ['matches-openai-capacity', 'Selected model is at capacity. Please try a different model.', OV],
      [
        'matches-openrouter-high-load',
        { provider: 'openrouter', message: 'The service is currently experiencing high load and cannot process your request.' },
        OV,
      ],
      ['matches-zhipu-overload-cn', { provider: 'zai', message: '[1305][该模型当前访问量过大，请您稍后再试]' }, OV],
    ],
  },
  {
    src: SRC.patterns,
    rows: [['patterns-bedrock-model-not-ready', { provider: 'amazon-bedrock', message: 'ModelNotReadyException: model is not ready' }, OV]],
  },
  { src: SRC.mantle, rows: [['mantle-overloaded', { provider: 'amazon-bedrock-mantle', message: 'overloaded_error' }, OV]] },
  { src: SRC.billing, rows: [['billing-529-retry', '529 Please try again', OV]] },
] satisfies readonly Group[];
