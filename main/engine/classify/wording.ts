/**
 * E8: what providers say, by reason. Each list holds real wording seen from providers (English, and the Chinese of
 * GLM, Qwen, Kimi, DeepSeek and other OpenAI-compatible endpoints), one phrase per line; `matches` tests a text
 * against a list. The order in which the lists are consulted, and what beats what, is in rules.ts.
 */

export type Phrases = readonly RegExp[];

export const matches = (list: Phrases, text: string): boolean => list.some((re) => re.test(text));

/** Unambiguous billing: no credit left, a plan that does not cover the request. Beats a period cap and any status. */
export const BILLING: Phrases = [
  /insufficient[_ ](?:\w+ ){0,3}(?:credits?|balance|funds|quota)\b/i, // "Insufficient USD or Diem balance", insufficient_quota
  /insufficient_balance/i,
  /credit balance (?:is )?too low/i,
  /\b(?:run|ran|are|is|you're) out of (?:credits|budget|extra usage)/i,
  /no available balance/i,
  /used all available credits/i,
  /requires? more credits/i,
  /extra usage is required|draw from your extra usage/i, // Anthropic
  /billing hard limit/i,
  /maximum allowed monthly spending limit/i, // Together
  /check your plan and billing details|plans & billing/i, // OpenAI
  /not available in your current plan|subscription plan does not (?:yet )?include/i, // z.ai 1311
  /does not have a valid [\w ]{0,30}subscription|subscription has expired|purchase a subscription/i, // Volcengine, proxies
  /used up your points/i, // Poe
  /\bkey limit exceeded/i, // OpenRouter: the key's credit limit (on a 401 or 403)
  /\b(?:Go|Free)UsageLimitError\b/,
  /余额不足|欠费/, // balance too low, in arrears
];

/** Weaker billing wording: the 402 reason phrase. A period cap or rate-limit wording beats it. */
export const PAYMENT_REQUIRED: Phrases = [/payment required/i];

/** A cap that resets by itself (per day/week/month, a spend cap, a rolling window): a rate limit, even on a 402. */
export const PERIOD_LIMIT: Phrases = [
  /\b(?:hourly|daily|weekly|monthly)(?:\/(?:weekly|monthly))? (?:usage |token |request |spend |spending )?limit/i,
  /\bspend(?:ing)? limit/i,
  /limit (?:will )?resets?\b|resets (?:at|in|tomorrow)/i,
  /billing period|rolling (?:time )?window|quota refresh/i,
  /tokens per (?:min|day)|requests per (?:min|day)|per minute/i,
];

/** Rate limits and temporary quotas. */
export const RATE_LIMIT: Phrases = [
  /rate[ _-]?limit/i,
  /too many (?:concurrent )?requests/i,
  /throttl/i,
  /resource[ _]?exhausted/i,
  /quota[ _](?:limit[ _])?exceeded|exceeded your current quota/i,
  /\b(?:tpm|rpm|tpd)\b/i,
  /concurrency limit/i,
  /频繁|频率(?:限制|超限)|配额(?:已用尽|不足)|额度(?:不足|已用尽)/, // too frequent, frequency limit, quota used up
];

/** "You've hit your usage limit": a rate limit, except at a 402, where a plan's cap is billing (rules.ts). */
export const USAGE_LIMIT: Phrases = [/usage limit/i];

/** The provider is short of capacity right now. */
export const OVERLOADED: Phrases = [
  /overload/i, // overloaded, overloading, Engine Overloaded
  /(?:over|at) capacity|capacity limits/i,
  /high (?:demand|load)/i,
  /server is busy/i,
  /service (?:is )?(?:temporarily )?unavailable|temporarily unavailable/i,
  /ModelNotReadyException/,
  /insufficient_system_resource/i, // DeepSeek finish_reason
  /过载|负载过高|访问量过大/, // overload, load too high, too much traffic
];

/** The key or account is rejected. */
export const AUTH: Phrases = [
  /invalid[_ ]?(?:x-)?api[_ -]?key(?![a-z])|incorrect api key/i, // not "API key invalidation", "API KEYSTORE"
  /\bapi[_ ]?key[_ ](?:is )?(?:missing|invalid|revoked|expired|not valid|deleted|disabled|deactivated)\b/i,
  /could not (?:authenticate|validate credentials)/i,
  /authentication (?:failed|required|error)|proxy authentication/i,
  /unauthori[sz]ed|forbidden|access denied/i,
  /permission_error|permission_denied|insufficient permissions|missing scopes?/i,
  /re-?authenticate/i,
  /invalid (?:token|credentials|client secret)|invalid api endpoint or credentials|token (?:has )?expired/i,
  /(?:key|account|workspace) has been (?:disabled|revoked|deactivated)|deactivated[_ ]workspace/i,
  /oauth authentication is currently not allowed/i,
  /无权访问|禁止访问|认证失败|鉴权失败|密钥无效/, // no access, access forbidden, authentication failed, key invalid
];

/** The model does not exist (or no longer does) at this provider. */
export const MODEL_NOT_FOUND: Phrases = [
  /\bmodel\b[^\n]{0,80}?\b(?:not found|does not exist)/i,
  /model[_ ]not[_ ]found|unknown model|no such model|model_is_deactivated/i,
];

/** The request itself is malformed for this server (falls back; never retried as is). */
export const FORMAT: Phrases = [
  /invalid (?:request|input) format/i,
  /should match pattern/i,
  /does not support|not supported|no endpoints found that support/i,
  /must end with a user message|roles must alternate/i,
  /thinking blocks cannot be modified|invalid `signature`/i,
  /reasoning is mandatory/i,
];

/** A request that names a parameter the server does not accept: a format error behind any gateway status. */
export const PARAMETER_REJECTED: Phrases = [/\b(?:unknown|unsupported|unrecognized) parameter\b/i];

/** The connection failed or the response was cut off: retried, then the next model. */
export const TRANSPORT: Phrases = [
  /fetch failed|socket hang up|other side closed|premature close/i,
  /^\s*(?:terminated|request failed)\.?\s*$/im, // undici's and the SDK's bare messages
  /^\s*an unknown error occurred\.?\s*$/im,
  /timed? ?out|deadline exceeded/i,
  /\be(?:connreset|connrefused|connaborted|timedout|sockettimedout|hostunreach|hostdown|netunreach|netreset|pipe|notfound|ai_again)\b/i,
  /\bund_err_\w+/i,
  /network[ _]error|connection (?:error|reset|closed|refused|lost)/i,
  /stream (?:was )?(?:aborted|closed)|stream_read_error|stream ended|ended without|missing finish_reason/i,
  /operation was aborted/i,
  /upstream (?:reset|connect error)|closed unexpectedly|websocket error|did not get a response/i,
  /\b(?:finish_reason|stop reason|reason):\s*(?:abort|network_error|malformed_response)\b/i,
  /网络错误|网络异常|连接超时|请求超时|连接错误|服务繁忙|系统繁忙|服务暂时不可用/, // network error, timeouts, busy
];

/** The provider failed on its side. */
export const SERVER: Phrases = [
  /internal server error|server[_ ]error|bad gateway/i,
  /\b(?:finish_reason|stop reason):\s*error\b/i, // a completion the provider ended with an error
  /an error occurred while processing your request|the server had an error|unexpected error/i,
  /temporary provider failure|internal error encountered|got status: internal/i,
  /系统错误|系统异常|内部错误|服务器错误|服务器内部错误/, // system error, internal error, server error
];

/** The caller stopped the request (the SDKs' own wording; our own aborts are recognised by name). */
export const CALLER_ABORT: Phrases = [/request was aborted/i];
