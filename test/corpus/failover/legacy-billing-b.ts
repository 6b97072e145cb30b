// OpenClaw src/agents/failover/failover-classification.legacy-billing-b.cases.ts ("distinct real inputs preserved
// from matcher-specific suites"): [number, message, expectation, provider?] in the original, ids legacy-billing-b-NNN.
import { OC_INTERNAL, SRC, X, type Group, type Row } from './types.js';

const id = (n: number) => `legacy-billing-b-${String(n).padStart(3, '0')}`;

const LONG_PROSE =
  "Sure! Here's how to set up billing for your SaaS application.\n\n## Payment Integration\n\nFirst, you'll need to configure your payment gateway. Most providers offer a dashboard where you can manage credits, view invoices, and upgrade your plan. The billing page typically shows your current balance and payment history.\n\n## Managing Credits\n\nUsers can purchase credits through the billing portal. When their credit balance runs low, send them a notification to upgrade their plan or add more credits. You should also handle insufficient balance cases gracefully.\n\n## Subscription Plans\n\nOffer multiple plan tiers with different features. Allow users to upgrade or downgrade their plan at any time. Make sure the billing cycle is clear.\n\nLet me know if you need more details on any of these topics!";

const rows: Row[] = [
  [id(1), 'HTTP 422: insufficient credits', 'billing'],
  [id(2), 'HTTP 422: No body', null],
  [id(3), 'HTTP 422: No response body', null],
  [id(4), 'HTTP 422: Unprocessable Entity', 'format'],
  [id(5), 'HTTP 499', 'timeout'],
  [id(6), 'HTTP 499: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'overloaded'],
  [id(7), 'HTTP 499: 499 Client Closed Request', 'timeout'],
  [id(8), 'HTTP 500', 'server_error'],
  [
    id(9),
    'HTTP 500: Codex error: {"type":"error","error":{"type":"server_error","code":"server_error","message":"An error occurred while processing your request."},"sequence_number":2}',
    'server_error',
  ],
  [
    id(10),
    'HTTP 502: Codex error: {"type":"error","error":{"type":"server_error","code":"server_error","message":"An error occurred while processing your request."},"sequence_number":2}',
    'server_error',
  ],
  [
    id(11),
    'HTTP 504: Codex error: {"type":"error","error":{"type":"server_error","code":"server_error","message":"An error occurred while processing your request."},"sequence_number":2}',
    'server_error',
  ],
  [id(12), 'insufficient credits: request size exceeds your current plan limits', 'billing'],
  [id(13), 'invalid api key', 'auth'],
  [id(14), 'invalid token', 'auth'],
  [id(15), 'ISSUE-402 has been resolved', null],
  [id(16), 'key has been revoked', 'auth_permanent'],
  [id(18), "Let's investigate the context overflow bug", null],
  [id(19), 'LLM request failed with an unknown error.', null, OC_INTERNAL('its generic run-failure text')],
  [id(20), 'LLM request rejected: does not support assistant message prefill', 'format'],
  [
    id(21),
    'messages.84.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels',
    null,
  ],
  [id(22), 'Model context window too small (minimum is 128k tokens)', null],
  [id(23), 'model not found', 'model_not_found'],
  [id(24), 'model_context_window_exceeded', 'context_overflow'],
  [id(25), 'no api key found', 'auth', OC_INTERNAL('its auth-profile store')],
  [
    id(26),
    'No API key found for provider "openai". Auth store: /tmp/openclaw-agent-abc/auth-profiles.json (agentDir: /tmp/openclaw-agent-abc).',
    'auth',
    OC_INTERNAL('its auth-profile store'),
  ],
  [id(27), 'no credentials found', 'auth', OC_INTERNAL('its auth-profile store')],
  [
    id(28),
    {
      message:
        'OAuth token refresh failed for openai: file lock timeout for /tmp/agent/auth-profiles.json. Please try again or re-authenticate.',
      provider: 'openai',
    },
    'auth',
    OC_INTERNAL('its OAuth refresh'),
  ],
  [
    id(29),
    { message: 'OAuth token refresh failed for openai: invalid_grant. Please try again or re-authenticate.', provider: 'openai' },
    'auth_permanent',
    OC_INTERNAL('its OAuth refresh'),
  ],
  [id(30), 'Payment Required', 'billing'],
  [id(31), 'port 402 is open', null],
  [id(32), 'processed 402 records', null],
  [id(33), 'Prompt is too long', 'context_overflow'],
  [
    id(34),
    'Proxy notice: Status: Internal Server Error',
    null,
    { ours: 'server_error', why: 'we classify provider errors only, never prose: "Internal Server Error" in one is a server error' },
  ],
  [id(35), 'Proxy notice: Status: Internal Server Error; code:500', 'timeout'],
  [id(36), 'Proxy notice: Status: Internal Server Error; upstream connect error', 'timeout'],
  [
    id(37),
    `Quarterly report summary: subsystem A returned 402 records after retry. This is an analytics count, not an HTTP/API billing failure. Notes: ${X(700)}`,
    null,
  ],
  [id(38), 'reason: abort', 'timeout'],
  [id(39), 'reason: network_error', 'timeout'],
  [id(40), 'received a 402 response', 'billing'],
  [id(41), 'request failed', 'timeout'],
  [id(42), 'request size exceeds model context window', 'context_overflow'],
  [id(43), 'request size exceeds upload limit', null],
  [id(44), 'request timed out', 'timeout'],
  [id(45), 'Room 402 is available', null],
  [id(46), 'See ticket #402 for details', null],
  [id(47), 'Something is causing context overflow messages', null],
  [id(48), 'status=402 payment required', 'billing'],
  [id(49), 'stop reason: abort', 'timeout'],
  [id(50), 'stop reason: error', 'server_error'],
  [id(51), 'stop reason: MALFORMED_RESPONSE', 'timeout'],
  [id(52), 'stop reason: network_error', 'timeout'],
  [id(53), 'stream aborted', 'timeout'],
  [id(54), 'stream closed', 'timeout'],
  [id(55), LONG_PROSE, null],
  [id(56), 'Terminated', 'timeout'],
  [id(57), 'The building at 402 Main Street', null],
  [id(58), 'The evidence is insufficient to reconcile the final balance after compaction.', null],
  [id(59), 'The mystery context overflow errors are strange', null],
  [id(60), 'the operation was aborted', 'timeout'],
  [id(61), 'The user terminated the session manually.', null],
  [id(62), 'There is a 402 near me', null],
  [id(63), 'This endpoint requires reasoning', null],
  [id(64), 'This model requires reasoning to be enabled', null],
  [id(65), 'This operation was aborted', 'timeout'],
  [id(66), 'token has expired', 'auth'],
  [id(67), 'unauthorized', 'auth'],
  [id(68), 'UND_ERR_SOCKET', 'timeout'],
  [id(69), 'Unhandled stop reason: context_window_exceeded', 'context_overflow'],
  [id(70), 'Unhandled stop reason: error', 'server_error'],
  [id(71), 'Unhandled stop reason: malformed_response', 'timeout'],
  [id(72), 'Unknown error (no error details in response)', 'no_error_details'],
  [id(73), 'Use a 402 stainless bolt', null],
  [id(74), 'user reported that an unknown error occurred during sync', null],
  [id(75), "We're debugging context overflow issues", null],
  [
    id(76),
    {
      message:
        "You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), try again after 11:34 AM.",
      provider: 'openai',
    },
    'rate_limit',
  ],
  [
    id(77),
    {
      message:
        "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits, try again later.",
      provider: 'openai',
    },
    'rate_limit',
  ],
  [
    id(78),
    {
      message:
        'Your access token could not be refreshed because you have since logged out or signed in to another account. Please sign in again.',
      provider: 'openai',
    },
    'auth_permanent',
    { na: 'ChatGPT/Codex OAuth sign-in; we use API keys only' },
  ],
  [
    id(79),
    {
      message: 'Your authentication session could not be refreshed automatically. Please log out and sign in again.',
      provider: 'openai',
    },
    'auth_permanent',
    { na: 'ChatGPT/Codex OAuth sign-in; we use API keys only' },
  ],
  [id(80), 'Your credit balance is too low', 'billing'],
  [id(81), 'Your credit balance is too low. Maximum request token limit exceeded.', 'billing'],
  [id(82), '上下文过长', 'context_overflow'],
];

export default [{ src: SRC.billing, rows }] satisfies readonly Group[];
