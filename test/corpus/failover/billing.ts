// OpenClaw src/agents/failover/failover-classification.billing.cases.ts
import { SRC, type Group } from './types.js';

const B = 'billing';

export default [
  {
    src: SRC.retry,
    rows: [
      ['retry-go-usage-limit', 'GoUsageLimitError: usage is unavailable for this account', B],
      ['retry-free-usage-limit', 'FreeUsageLimitError: free usage is exhausted', B],
      ['retry-no-available-balance', 'Your account has no available balance', B],
      ['retry-out-of-budget', 'Provider account is out of budget', B],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-anthropic-low-credit', 'Your credit balance is too low to access the Anthropic API.', B],
      ['billing-insufficient-credits', 'insufficient credits', B],
      ['billing-openrouter-payment-required', { provider: 'openrouter', message: 'Payment Required: insufficient credits' }, B],
      [
        'billing-openai-insufficient-quota-json',
        {
          provider: 'openai',
          message:
            '{"type":"error","error":{"type":"insufficient_quota","message":"Your account has insufficient quota balance to run this request."}}',
        },
        B,
      ],
      [
        'billing-together-payment-required',
        {
          provider: 'together',
          message:
            '402 Payment Required: The account associated with this API key has reached its maximum allowed monthly spending limit.',
        },
        B,
      ],
      [
        'billing-venice-balance',
        {
          provider: 'venice',
          message: 'Insufficient USD or Diem balance to complete request. Visit https://venice.ai/settings/api to add credits.',
        },
        B,
      ],
      ['billing-more-credits-model', 'This model requires more credits to use', B],
      ['billing-more-credits-endpoint', 'This endpoint require more credits', B],
      [
        'billing-anthropic-extra-usage',
        { provider: 'anthropic', message: "You're out of extra usage. Add more at claude.ai/settings/usage and keep going." },
        B,
      ],
      ['billing-anthropic-extra-usage-required', { provider: 'anthropic', message: 'Extra usage is required for long context requests.' }, B],
      [
        'billing-anthropic-third-party-extra-usage',
        {
          provider: 'anthropic',
          message:
            "Third-party apps now draw from your extra usage, not your plan limits. We've added a $200 credit to get you started. Claim it at claude.ai/settings/usage and keep going.",
        },
        B,
      ],
      ['billing-insufficient-balance-code', 'insufficient_balance', B],
      ['billing-mbt-balance', 'Insufficient MBT balance. Top up or upgrade your subscription to continue.', B],
      ['billing-team-credits-spend', 'Your team has either used all available credits or reached its monthly spending limit.', B],
      [
        'billing-mbt-flat-json',
        '{"error":"insufficient_balance","message":"Insufficient MBT balance. Top up or upgrade your subscription to continue.","upgradeUrl":"/settings/billing"}',
        B,
      ],
      ['billing-poe-points', { provider: 'poe', message: "402 You've used up your points! Visit https://poe.com/api/keys to get more." }, B],
      ['billing-proxy-subscription', '402 No available asset for API access, please purchase a subscription', B],
      ['billing-upgrade-plan', 'HTTP 402 Payment Required: Your usage limit has been reached. Please upgrade your plan.', B],
      ['billing-chinese-balance', '余额不足，请充值', B],
      ['billing-chinese-account-balance', '账户余额不足', B],
      ['billing-chinese-arrears', '账户已欠费', B],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      ['matches-zai-1311', { provider: 'zai', message: '{"code":1311,"message":"The model you requested is not available in your current plan"}' }, B],
      [
        'matches-zai-plan-access',
        { provider: 'zai', message: 'FailoverError: Your current subscription plan does not yet include access to GLM-5V-Turbo' },
        B,
      ],
      [
        'matches-volcengine-subscription',
        {
          provider: 'volcengine',
          message:
            '{"error":{"code":"InvalidSubscription","message":"Your account does not have a valid CodingPlan subscription, or your subscription has expired."}}',
        },
        B,
      ],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-xai-spending-limit',
        {
          provider: 'xai',
          message:
            '429 {"code":"Some resource has been exhausted","error":"Your team team-redacted has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit."}',
        },
        B,
      ],
    ],
  },
  {
    src: SRC.structured,
    rows: [
      [
        'structured-billing-raw-extra-usage',
        {
          provider: 'anthropic',
          message:
            '{"type":"error","error":{"type":"invalid_request_error","message":"You are out of extra usage. Add more at claude.ai/settings/usage"}}',
        },
        B,
      ],
      [
        'structured-billing-typed-extra-usage',
        { provider: 'anthropic', errorType: 'invalid_request_error', message: 'You are out of extra usage. Add more at claude.ai/settings/usage' },
        B,
      ],
      [
        'structured-billing-openai-details',
        {
          provider: 'openai',
          message: 'You exceeded your current quota, please check your plan and billing details.',
          code: 'insufficient_quota',
          errorType: 'insufficient_quota',
          details: ['{"error":{"code":"insufficient_quota","type":"insufficient_quota"}}'],
        },
        B,
      ],
    ],
  },
  {
    src: SRC.http,
    rows: [
      [
        'http-structured-insufficient-quota',
        {
          status: 429,
          code: 'insufficient_quota',
          errorType: 'rate_limit_error',
          message: 'Provider API error (429): Quota exceeded',
          details: ['insufficient_quota'],
        },
        B,
      ],
    ],
  },
  {
    src: SRC.retry,
    rows: [
      [
        'retry-openai-insufficient-quota',
        {
          provider: 'openai',
          message: 'OpenAI API error (429): insufficient_quota: Your account has insufficient quota balance to run this request.',
        },
        B,
      ],
    ],
  },
  {
    src: SRC.xai,
    rows: [
      [
        'xai-403-spending-limit',
        {
          provider: 'xai',
          message:
            '403 {"code":"The caller does not have permission to execute the specified operation","error":"Your team team-redacted has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit."}',
        },
        B,
      ],
      [
        'xai-out-of-credits',
        { provider: 'xai', message: '403 {"error":"You have run out of credits"}' },
        'auth',
        { ours: 'billing', why: '"run out of credits" is explicit billing evidence, which beats a 403 status; OpenClaw misses this wording' },
      ],
      ['xai-subscription-required', { provider: 'xai', message: '403 {"error":"You need a Grok subscription"}' }, 'auth'],
    ],
  },
  {
    src: SRC.billing,
    rows: [
      ['billing-http-402', 'HTTP 402 Payment Required', B],
      ['billing-status-402', 'status: 402', B],
      ['billing-error-code-402', 'error code 402', B],
      ['billing-returned-402', 'returned 402', B],
      ['billing-json-status-402', '{"status":402,"type":"error"}', B],
      ['billing-json-code-402', '{"code":402,"message":"payment required"}', B],
      ['billing-json-hard-limit', '{"error":{"code":402,"message":"billing hard limit reached"}}', B],
      ['billing-plan-billing', 'plans & billing', B],
      ['billing-credit-too-low', 'credit balance too low', B],
      ['billing-plan-limit-exhausted', 'HTTP 402 payment required. Your limit exhausted for this plan.', B],
      [
        'billing-periodic-limit-402',
        '402 Payment Required: Weekly/Monthly Limit Exhausted',
        B,
        { ours: 'rate_limit', why: 'a weekly/monthly cap resets by itself: a rate limit even on a 402, as OpenClaw does for every other period cap' },
      ],
      ['billing-explicit-low-credit-limit', 'Your credit balance is too low. Monthly limit exceeded.', B],
      ['billing-explicit-credit-org-limit', 'Insufficient credits. Organization limit reached.', B],
      [
        'billing-api-key-spending-limit',
        'The account associated with this API key has reached its maximum allowed monthly spending limit.',
        B,
      ],
      ['billing-custom-proxy', { message: '402 custom proxy billing failure', status: 402 }, B],
      ['billing-api-error-insufficient', '{"type":"error","error":{"type":"api_error","message":"insufficient credits"}}', B],
      ['billing-api-error-payment', '{"type":"error","error":{"type":"api_error","message":"Payment required"}}', B],
      [
        'billing-anthropic-extra-usage-json',
        {
          message:
            '{"type":"error","error":{"type":"invalid_request_error","message":"You\'re out of extra usage. Add more at claude.ai/settings/usage and keep going."}}',
          provider: 'anthropic',
        },
        B,
      ],
      [
        'billing-anthropic-extra-required-json',
        {
          message: '{"type":"error","error":{"type":"invalid_request_error","message":"Extra usage is required for long context requests."}}',
          provider: 'anthropic',
        },
        B,
      ],
    ],
  },
  {
    src: SRC.matches,
    rows: [
      ['matches-zai-1311-spaced', { message: '{"code": 1311, "message": "model not on plan"}', provider: 'zai' }, B],
      [
        'matches-volcengine-subscription-lower',
        {
          message:
            '{"error":{"code":"InvalidSubscription","message":"Your account does not have a valid coding plan subscription, or your subscription has expired."}}',
          provider: 'volcengine',
        },
        B,
      ],
    ],
  },
  {
    src: SRC.patterns,
    rows: [
      [
        'patterns-html-402',
        '402 <!doctype html><html><head><title>402 Payment Required</title></head><body><h1>Payment Required</h1><p>Your quota is exhausted.</p></body></html>',
        B,
      ],
    ],
  },
] satisfies readonly Group[];
