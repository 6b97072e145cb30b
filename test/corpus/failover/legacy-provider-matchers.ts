// OpenClaw src/agents/failover/failover-classification.legacy-provider-matchers.cases.ts
import { OC_INTERNAL, X, type Group } from './types.js';

const FM = 'src/agents/embedded-agent-helpers/failover-matches.test.ts';
const PE = 'src/agents/embedded-agent-helpers/provider-error-patterns.test.ts';
const id = (n: number) => `legacy-provider-matchers-${String(n).padStart(3, '0')}`;

export default [
  {
    src: FM,
    rows: [
      [id(1), '{"code": 1113, "message": "invalid api endpoint or credentials"}', 'auth'],
      [id(2), `{"code":1311,"message":"The model you requested is not available in your current plan","details":"${X(600)}"}`, 'billing'],
      [
        id(3),
        `{"error":{"code":"InvalidSubscription","message":"Your account does not have a valid coding plan subscription, or your subscription has expired.","details":"${X(600)}"}}`,
        'billing',
      ],
    ],
  },
  {
    src: PE,
    rows: [
      [id(4), '401 <!doctype html><html><head><title>401 Unauthorized</title></head><body><h1>Unauthorized</h1></body></html>', 'auth'],
      [id(5), '403 <!doctype html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>', 'auth'],
      [
        id(6),
        '502 <!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>cloudflare-nginx</p></body></html>',
        'timeout',
      ],
      [
        id(7),
        '503 <!doctype html><html><head><title>503</title></head><body><h1>Service Unavailable</h1><p>Please try again. Rate limit exceeded.</p></body></html>',
        'timeout',
      ],
    ],
  },
  {
    src: FM,
    rows: [[id(8), 'API key invalidation policy updated', null]],
  },
  { src: PE, rows: [[id(9), 'concurrency limit reached', 'rate_limit']] },
  {
    src: PE,
    rows: [
      [
        id(10),
        'Error: 401 <!doctype html><html><head><title>401 Unauthorized</title></head><body><h1>Unauthorized</h1></body></html>',
        'auth',
      ],
    ],
  },
  {
    src: FM,
    rows: [
      [
        id(11),
        'HTTP 429: 429 status code (exceeded limit)\n{"code":1305,"message":"The service may be temporarily overloaded, please try again later."}',
        'rate_limit',
      ],
    ],
  },
  { src: PE, rows: [[id(12), 'internal server error', 'timeout']] },
  {
    src: FM,
    rows: [
      [id(13), 'invalid api key provided', 'auth'],
      [id(14), 'INVALID API KEYSTORE configuration', null],
      [
        id(15),
        'LLM request failed: connection refused by the provider endpoint.',
        null,
        OC_INTERNAL('its user-facing failure text'),
      ],
      [
        id(16),
        'LLM request failed: provider rejected the request schema or tool payload.',
        null,
        OC_INTERNAL('its user-facing failure text'),
      ],
      [id(17), 'llm request failed.', 'timeout', OC_INTERNAL('its generic run-failure text')],
      [id(18), 'LLM request failed.', 'timeout', OC_INTERNAL('its generic run-failure text')],
    ],
  },
  { src: PE, rows: [[id(19), 'model_is_deactivated', 'model_not_found']] },
  { src: PE, rows: [[id(20), 'Permission denied for /root/oc-acp-write-should-fail.txt.', null]] },
  { src: FM, rows: [[id(21), 'provider failed (HTTP 500): upstream apiKey is empty', 'timeout']] },
  {
    src: FM,
    rows: [
      [
        id(22),
        'Requested agent harness "codex" does not support openrouter/gpt-5.4 (provider is not one of: codex, openai).',
        'format',
        OC_INTERNAL('its agent-harness selection'),
      ],
    ],
  },
  { src: PE, rows: [[id(23), 'some random error', null]] },
  { src: FM, rows: [[id(24), 'status: internal server error', 'timeout']] },
] satisfies readonly Group[];
