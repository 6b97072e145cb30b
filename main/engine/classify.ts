/**
 * E8 failover classification (pure): maps any provider error — Anthropic/OpenAI SDK errors (HTTP or mid-stream),
 * connection failures, aborts, plain texts and plain objects (OpenAI Responses `error` events) — to a reason the
 * retry loop acts on, plus a one-line user message with keys redacted and the server's retry hint.
 *
 * Order of evidence: abort → our own named errors → context overflow (text, with false-positive exclusions)
 * → specific provider codes → HTTP status table → generic provider types → message patterns → unknown.
 * Rules follow the providers' documented status codes, error types and messages (both SDKs, all three APIs).
 */
import type { FailoverReasonDto } from '../../preload/contract.js';

/** The reasons are the contract's, so the UI and the CLI's --json output name them exactly as classified here. */
export type FailoverReason = FailoverReasonDto;

export interface ClassifiedError {
  reason: FailoverReason;
  status?: number;
  /** Provider error code/type, e.g. 'overloaded_error', 'context_length_exceeded', 'insufficient_quota'. */
  code?: string;
  /** One clear line for a user; never contains an API key. */
  message: string;
  /** From retry-after-ms / retry-after (seconds or HTTP date) headers when present. */
  retryAfterMs?: number;
  /** rate_limit, overloaded, timeout, server_error → true. */
  transient: boolean;
}

const TRANSIENT: ReadonlySet<FailoverReason> = new Set(['rate_limit', 'overloaded', 'timeout', 'server_error']);

// ---------------------------------------------------------------------------------------------------------------
// Context overflow (isLikelyContextOverflowError with its false-positive exclusions)

/** "Limit N, [Used U,] Requested M": a request-size ceiling when M > N (can never fit), else a rate limit. */
const LIMIT_REQUESTED = /limit:?\s*([\d,]+)\s*,\s*(?:used:?\s*([\d,]+)\s*,\s*)?requested:?\s*([\d,]+)/i;
const RATE_HINT =
  /\b(?:tpm|rpm|tpd)\b|tokens per (?:min|day)|requests per (?:min|day)|per minute|rate[_ ]?limit|too many requests|throttl|resource[_ ]?exhausted|quota/i;
const REASONING_CONSTRAINT = /budget_tokens|thinking\.budget|reasoning[_ ]effort|max_tokens must be (?:greater|larger)/i;
const WINDOW_TOO_SMALL = /context window (?:is )?too small|minimum context (?:window|length)/i;
const BILLING_TEXT =
  /insufficient[_ ]quota|exceeded your current quota|credit balance|billing|payment required|insufficient (?:credits|balance|funds)|purchase credits|out of credits/i;
const OVERFLOW_STRONG: readonly RegExp[] = [
  /prompt is too long/i,
  /request_too_large/i,
  /context_length_exceeded/i,
  /maximum context length/i,
  /input token count exceeds the maximum/i,
  /exceed_context_size_error/i,
  /exceeds the available context size/i,
  /context length of only \d+/i, // LM Studio: "loaded with context length of only 4096"
  /context size has been exceeded/i,
  /when context the overflows/i, // LM Studio: "Trying to keep the first N tokens when context the overflows"
  /model_context_window_exceeded/i,
  /exceeds? (?:the )?(?:model'?s? )?context (?:window|limit|length)/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /input is too long for (?:the )?requested model/i, // Bedrock
  /reduce the length of the (?:messages|prompt|input)/i,
  /\b413\b.*too large/i,
  /request entity too large|payload too large/i,
];
const OVERFLOW_LOOSE =
  /context[^.\n]{0,40}(?:overflow|exceed|too long|too large|is full)|(?:too long|too large|exceeds?)[^.\n]{0,40}context/i;

const num = (s: string | undefined): number => Number((s ?? '').replace(/,/g, ''));

export function isContextOverflowText(text: string): boolean {
  if (!text) return false;
  if (BILLING_TEXT.test(text)) return false;
  const ceiling = LIMIT_REQUESTED.exec(text);
  if (ceiling) return num(ceiling[3]) > num(ceiling[1]);
  if (RATE_HINT.test(text)) return false;
  if (REASONING_CONSTRAINT.test(text) || WINDOW_TOO_SMALL.test(text)) return false;
  if (OVERFLOW_STRONG.some((re) => re.test(text))) return true;
  if (/prompt template/i.test(text)) return false;
  return OVERFLOW_LOOSE.test(text);
}

// ---------------------------------------------------------------------------------------------------------------
// Codes and text patterns

/** Provider codes/types that name the cause on their own (checked before the status table). */
const SPECIFIC_CODES: ReadonlyArray<[RegExp, FailoverReason]> = [
  [/^(?:insufficient_quota|billing_error|billing_hard_limit_reached|payment_required|insufficient_balance)$/, 'billing'],
  [/^(?:context_length_exceeded|request_too_large|exceed_context_size_error|model_context_window_exceeded)$/, 'context_overflow'],
  [/^overloaded/, 'overloaded'],
  [/^(?:rate_limit_error|rate_limit_exceeded|resource_exhausted|too_many_requests|throttl)/, 'rate_limit'],
  [/^(?:authentication_error|permission_error|invalid_api_key|unauthorized|permission_denied|account_deactivated)$/, 'auth'],
  [/^(?:not_found_error|model_not_found)$/, 'model_not_found'],
  [
    /^(?:timeout_error|etimedout|econnreset|econnrefused|econnaborted|epipe|enotfound|eai_again|ehostunreach|enetunreach|err_stream_premature_close|und_err_\w+)$/,
    'timeout',
  ],
];
const SERVER_CODES = /^(?:api_error|server_error|internal_error|internal_server_error)$/;

const OVERLOADED_TEXT = /overloaded|over capacity|server is busy|high demand/i;
/** Period or spend caps that clear by themselves: rate_limit, even on 402 or with billing words. */
const PERIOD_LIMIT_TEXT = /(?:daily|weekly|monthly|hourly) (?:usage |token |request |spend )?limit|usage limit|spend(?:ing)? limit/i;

const TEXT_RULES: ReadonlyArray<[RegExp, FailoverReason]> = [
  [PERIOD_LIMIT_TEXT, 'rate_limit'],
  [BILLING_TEXT, 'billing'],
  [RATE_HINT, 'rate_limit'],
  [OVERLOADED_TEXT, 'overloaded'],
  [
    /invalid[_ ]?(?:x-)?api[_ -]?key|incorrect api key|unauthori[sz]ed|authentication|permission[_ ]denied|forbidden|api key (?:is )?(?:missing|invalid|revoked|expired|not valid)|access denied/i,
    'auth',
  ],
  [/model\b[^.\n]{0,80}(?:not found|does not exist|is not available)|unknown model|no such model|model_not_found/i, 'model_not_found'],
  [/request was aborted|operation was aborted/i, 'aborted'],
  [
    /fetch failed|socket hang up|\bterminated\b|timed? ?out|timeout|econnreset|econnrefused|etimedout|network error|connection (?:error|reset|closed|refused)|premature close|other side closed|stream ended|ended without|missing finish_reason/i,
    'timeout',
  ],
  [/internal server error|server[_ ]error|bad gateway|service unavailable|gateway|api_error|finish_reason:? ?error/i, 'server_error'],
];

const textReason = (text: string): FailoverReason | undefined => TEXT_RULES.find(([re]) => re.test(text))?.[1];

function codeReason(codes: readonly string[], table: ReadonlyArray<[RegExp, FailoverReason]>): FailoverReason | undefined {
  for (const code of codes) {
    const hit = table.find(([re]) => re.test(code.toLowerCase()));
    if (hit) return hit[1];
  }
  return undefined;
}

function statusReason(status: number, text: string): FailoverReason | undefined {
  if (status === 402) return PERIOD_LIMIT_TEXT.test(text) ? 'rate_limit' : 'billing';
  if (status === 429) return !PERIOD_LIMIT_TEXT.test(text) && BILLING_TEXT.test(text) ? 'billing' : 'rate_limit';
  if (status === 401 || status === 403) return BILLING_TEXT.test(text) ? 'billing' : 'auth';
  if (status === 404) return 'model_not_found';
  if ([408, 410, 499, 504, 522, 524].includes(status)) return 'timeout';
  if (status === 529) return 'overloaded';
  if (status >= 500) return OVERLOADED_TEXT.test(text) ? 'overloaded' : 'server_error';
  if (status === 400 || status === 413 || status === 422) return textReason(text) ?? 'format';
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Fact extraction from whatever was thrown

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

interface Facts {
  status?: number;
  codes: string[];
  names: string[];
  /** The provider's own words (body message), when known. */
  detail?: string;
  /** err.message, causes, codes: everything that text rules may match. */
  text: string;
  headers?: unknown;
  provider?: string;
  /** Message of the innermost `cause` (e.g. "other side closed" under "terminated"). */
  rootCause?: string;
}

/** Collects type/code/message from an error body, however nested ({error:{…}}, {response:{error:{…}}}). */
function digBody(body: unknown, facts: Facts, depth = 0): void {
  if (depth > 3) return;
  if (typeof body === 'string') {
    facts.detail ??= body;
    return;
  }
  if (!isObj(body)) return;
  for (const key of ['error_code', 'code', 'type'] as const) {
    const v = str(body[key]);
    if (v && v !== 'error' && !v.startsWith('response.')) facts.codes.push(v);
  }
  if (isObj(body.details)) digBody(body.details, facts, depth + 1);
  if (body.error !== undefined && body.error !== null) digBody(body.error, facts, depth + 1);
  if (isObj(body.response)) digBody(body.response, facts, depth + 1);
  const message = str(body.message);
  if (message && depth > 0) facts.detail ??= message;
  if (typeof body.code === 'number' && facts.status === undefined && body.code >= 400 && body.code <= 599) {
    facts.status = body.code;
  }
}

function extractFacts(err: unknown): Facts {
  const facts: Facts = { codes: [], names: [], text: '' };
  if (!isObj(err)) {
    facts.detail = err === undefined || err === null ? undefined : String(err);
    facts.text = facts.detail ?? '';
    facts.status = statusFromText(facts.text);
    return facts;
  }
  const texts: string[] = [];
  if (typeof err.status === 'number') facts.status = err.status;
  else if (typeof err.statusCode === 'number') facts.status = err.statusCode;
  facts.headers = err.headers;
  if ('apiMessage' in err) facts.provider = 'Anthropic';
  else if ('param' in err && 'code' in err && err instanceof Error) facts.provider = 'OpenAI';
  for (let e: unknown = err, depth = 0; isObj(e) && depth < 4; e = e.cause, depth++) {
    const name = str(e.name);
    if (name) facts.names.push(name);
    const ctor = isObj(e.constructor) || typeof e.constructor === 'function' ? str((e.constructor as { name?: unknown }).name) : undefined;
    if (ctor && ctor !== 'Object' && ctor !== 'Error') facts.names.push(ctor);
    const code = str(e.code) ?? str(e.errorCode);
    if (code) facts.codes.push(code);
    if (str(e.message)) texts.push(e.message as string);
    if (depth > 0 && str(e.message)) facts.rootCause = e.message as string;
    if (depth === 0) {
      facts.detail = str(e.apiMessage);
      const type = str(e.type);
      if (type && type !== 'error' && !type.startsWith('response.')) facts.codes.push(type);
      // SDK errors: `.error` is the body (Anthropic) or the inner error (OpenAI); plain objects are bodies.
      digBody(e.error, facts, 1);
      if (isObj(e.response)) digBody(e.response, facts, 1);
      if (!(err instanceof Error)) facts.detail ??= str(e.message);
    }
  }
  facts.text = [facts.detail ?? '', ...texts, ...facts.codes].join(' | ');
  if (facts.status === undefined) facts.status = statusFromText(texts[0] ?? facts.detail ?? '');
  return facts;
}

/** "429 Too Many Requests", "HTTP 503", "status code 413" → the status (400–599 only). */
function statusFromText(text: string): number | undefined {
  const m = /^(?:error:\s*)?(\d{3})\b(?!\s*(?:tokens|ms|s\b|seconds|bytes))/i.exec(text.trim()) ?? /\b(?:status(?: code)?|http)\s*:?\s*(\d{3})\b/i.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return n >= 400 && n <= 599 ? n : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Retry hint

function headerValue(headers: unknown, name: string): string | undefined {
  if (!isObj(headers)) return undefined;
  if (typeof headers.get === 'function') {
    const v: unknown = (headers.get as (n: string) => unknown).call(headers, name);
    return typeof v === 'string' ? v : undefined;
  }
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? str(v[0]) : typeof v === 'number' ? String(v) : str(v);
  }
  return undefined;
}

export function retryAfterFromHeaders(headers: unknown, now: number): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = headerValue(headers, 'retry-after')?.trim();
  if (!ra) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

// ---------------------------------------------------------------------------------------------------------------
// User message

const KEY_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/\bsk-(?!ant-)[\w*-]{4,}/g, 'sk-***'],
  [/\bsk-ant-[\w*-]{4,}/g, 'sk-ant-***'],
  [/\b(?:gsk|xai|pplx)[-_][\w-]{12,}/g, '***'],
  [/\bAIza[\w-]{20,}/g, '***'],
  [/\b(Bearer)\s+[\w.~+/=-]{8,}/gi, '$1 ***'],
  [/((?:api[_-]?key|x-api-key)["']?\s*[:=]\s*["']?)[^\s"',&]{6,}/gi, '$1***'],
  [/([?&](?:key|api_key)=)[^&\s]+/gi, '$1***'],
];

export function redactKeys(text: string): string {
  return KEY_PATTERNS.reduce((s, [re, rep]) => s.replace(re, rep), text);
}

function cleanDetail(raw: string, status: number | undefined): string {
  let s = raw.trim();
  if (status !== undefined && s.startsWith(`${status} `)) s = s.slice(String(status).length + 1).trim();
  if (/^[{"]/.test(s)) {
    try {
      const parsed: unknown = JSON.parse(s);
      const f: Facts = { codes: [], names: [], text: '' };
      digBody(typeof parsed === 'string' ? parsed : { error: parsed }, f, typeof parsed === 'string' ? 1 : 0);
      if (f.detail) s = f.detail;
    } catch {
      /* not JSON: keep as is */
    }
  }
  if (/<html|<!doctype|<body/i.test(s)) {
    const title = /<title>([^<]*)<\/title>/i.exec(s)?.[1];
    s = title ?? s.replace(/<[^>]*>/g, ' ');
  }
  s = redactKeys(s.replace(/\s+/g, ' ').trim());
  return s.length > 300 ? `${s.slice(0, 299)}…` : s || 'no details';
}

function userMessage(reason: FailoverReason, who: string, tag: string, detail: string): string {
  switch (reason) {
    case 'rate_limit':
      return `${who} rate limit reached${tag}: ${detail}`;
    case 'overloaded':
      return `${who} is overloaded${tag}: ${detail}`;
    case 'billing':
      return `${who} billing or quota problem${tag}: ${detail}`;
    case 'auth':
      return `${who} rejected the API key${tag}: ${detail}`;
    case 'timeout':
      return `${who} connection failed or timed out${tag}: ${detail}`;
    case 'context_overflow':
      return `The conversation is too long for the model's context window${tag}: ${detail}`;
    case 'format':
      return `${who} rejected the request${tag}: ${detail}`;
    case 'model_not_found':
      return `Model not found${tag}: ${detail}`;
    case 'server_error':
      return `${who} server error${tag}: ${detail}`;
    case 'aborted':
      return `Request aborted: ${detail}`;
    case 'unknown':
      return `${who} error${tag}: ${detail}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------

function decide(f: Facts): FailoverReason {
  const names = f.names;
  if (names.some((n) => n === 'AbortError' || n === 'APIUserAbortError')) return 'aborted';
  if (names.includes('IdleTimeoutError') || names.includes('TimeoutError') || names.includes('APIConnectionTimeoutError')) {
    return 'timeout';
  }
  if (f.codes.some((c) => c.toUpperCase() === 'ETIMEDOUT')) return 'timeout';
  if (names.includes('ModelNotFoundError')) return 'model_not_found';
  if (isContextOverflowText(f.text)) return 'context_overflow';
  const specific = codeReason(f.codes, SPECIFIC_CODES);
  if (specific) return specific;
  if (f.status !== undefined) {
    const byStatus = statusReason(f.status, f.text);
    if (byStatus) return byStatus;
  }
  if (f.codes.some((c) => SERVER_CODES.test(c))) return OVERLOADED_TEXT.test(f.text) ? 'overloaded' : 'server_error';
  if (names.includes('APIConnectionError')) return 'timeout';
  const byText = textReason(f.text);
  if (byText) return byText;
  if (f.codes.includes('invalid_request_error')) return 'format';
  return 'unknown';
}

/**
 * Classifies any thrown value or error payload. `now` (ms) resolves HTTP-date retry-after headers;
 * `provider` overrides the provider name used in the message (detected from the SDK error otherwise).
 */
export function classifyError(err: unknown, now: number = Date.now(), provider?: string): ClassifiedError {
  const f = extractFacts(err);
  const reason = decide(f);
  const code = f.codes.find((c) => !/^\d+$/.test(c));
  const tag = f.status !== undefined ? ` (${f.status})` : code ? ` (${code})` : '';
  let rawDetail = f.detail ?? (isObj(err) ? str(err.message) : undefined) ?? (err === undefined ? '' : String(err));
  if (reason === 'timeout' && f.rootCause && !rawDetail.includes(f.rootCause)) rawDetail += ` (${f.rootCause})`;
  const out: ClassifiedError = {
    reason,
    message: userMessage(reason, provider ?? f.provider ?? 'The provider', tag, cleanDetail(rawDetail, f.status)),
    transient: TRANSIENT.has(reason),
  };
  if (f.status !== undefined) out.status = f.status;
  if (code) out.code = code;
  const retryAfterMs = retryAfterFromHeaders(f.headers, now);
  if (retryAfterMs !== undefined) out.retryAfterMs = retryAfterMs;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// E21: a provider that rejects the requested thinking level

/** Names of the thinking/reasoning parameter in the providers' 400 texts and `param` fields. */
const THINKING_PARAM = /reasoning[_. ]?effort|\breasoning\b|\bthinking\b|budget_tokens/i;
const REJECTED_VALUE = /unsupported|not supported|does not support|doesn't support|invalid value|not (?:a )?valid|must be one of|is not one of|not allowed|unrecognized|not available|input should be/i;

/**
 * True when a request failed because of its thinking level: a format-class 400/422 (see classifyError) whose text
 * names the reasoning/thinking parameter and says the value is not supported, e.g. OpenAI "Unsupported value:
 * 'reasoning_effort' does not support 'minimal' with this model", Anthropic "… does not support thinking".
 * The caller retries once a level lower (providers/thinking-fallback.ts).
 */
export function isThinkingLevelRejected(err: unknown): boolean {
  const f = extractFacts(err);
  if (f.status !== 400 && f.status !== 422) return false;
  if (decide(f) !== 'format') return false;
  const param = isObj(err) ? str(err.param) : undefined;
  const text = `${f.text} ${param ?? ''}`;
  return THINKING_PARAM.test(text) && REJECTED_VALUE.test(text);
}
