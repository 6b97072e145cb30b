/**
 * E8 failover classification (pure): maps any provider error — Anthropic/OpenAI SDK errors (HTTP or mid-stream),
 * connection failures, aborts, plain texts and plain objects (OpenAI Responses `error` events) — to a reason the
 * retry loop acts on, plus a one-line user message with keys redacted and the server's retry hint.
 *
 * The parts: classify/facts.ts gathers the evidence (status, codes, wording), classify/wording.ts lists what
 * providers say per reason, classify/overflow.ts recognises a context overflow, and classify/rules.ts is the
 * ordered table of rules that decides (the more specific signal wins). Held to OpenClaw's own classification
 * tests: test/corpus/.
 */
import type { FailoverReasonDto } from '../../preload/contract.js';
import { extractFacts, isObj, str, digBody, type Facts } from './classify/facts.js';
import { isContextOverflowText } from './classify/overflow.js';
import { decide } from './classify/rules.js';
import { providerFailureText } from '../../preload/messages/providers.js';

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

export { isContextOverflowText };

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
      const f: Facts = { codes: [], names: [], text: '', html: false, prose: false };
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

// ---------------------------------------------------------------------------------------------------------------

/**
 * Classifies any thrown value or error payload. `now` (ms) resolves HTTP-date retry-after headers;
 * `provider` (as configured) overrides the provider named in the message (detected from the SDK error otherwise),
 * and `profileId` names the key the call used (the message's wording: preload/messages/providers.ts).
 */
export function classifyError(err: unknown, now: number = Date.now(), provider?: string, profileId?: string | null): ClassifiedError {
  const f = extractFacts(err);
  const reason = decide(f);
  const code = f.codes.find((c) => !/^\d+$/.test(c));
  const tag = f.status !== undefined ? ` (${f.status})` : code ? ` (${code})` : '';
  let rawDetail = f.detail ?? (isObj(err) ? str(err.message) : undefined) ?? (err === undefined ? '' : String(err));
  if (reason === 'timeout' && f.rootCause && !rawDetail.includes(f.rootCause)) rawDetail += ` (${f.rootCause})`;
  const out: ClassifiedError = {
    reason,
    message: providerFailureText({
      reason,
      ...(provider ?? f.provider ? { provider: provider ?? f.provider } : {}),
      ...(profileId ? { profileId } : {}),
      tag,
      detail: cleanDetail(rawDetail, f.status),
      ...(code || f.rootCause ? { network: `${code ?? ''} ${f.rootCause ?? ''}` } : {}),
    }),
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
