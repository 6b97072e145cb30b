/**
 * E8: the decision, as one ordered table of rules — the first that applies names the reason. Evidence is of three
 * kinds (status, body codes, wording); the more specific signal wins:
 *
 *   our own errors (abort, idle timeout, unknown model)   — we know what happened
 *   an HTML page                                          — a proxy's page: only its status means anything
 *   a rejected parameter                                  — a format error behind any gateway status
 *   explicit billing                                      — no credit left beats a period cap and every status
 *   context overflow                                      — compaction is the only fix
 *   401/403/407, 429, 402, 529                            — statuses that name the cause on their own
 *   explicit auth, rate-limit, overload, model wording    — beat the vaguer statuses (400, 404, 410, 422, 5xx)
 *   the status table                                      — when the words said nothing specific
 *   transport and server wording, generic codes           — last: they say only "it failed"
 */
import type { FailoverReasonDto as FailoverReason } from '../../../preload/contract.js';
import type { Facts } from './facts.js';
import { isContextOverflowText } from './overflow.js';
import {
  AUTH,
  BILLING,
  CALLER_ABORT,
  FORMAT,
  MODEL_NOT_FOUND,
  OVERLOADED,
  PARAMETER_REJECTED,
  PAYMENT_REQUIRED,
  PERIOD_LIMIT,
  RATE_LIMIT,
  SERVER,
  TRANSPORT,
  USAGE_LIMIT,
  matches,
  type Phrases,
} from './wording.js';

// ---------------------------------------------------------------------------------------------------------------
// Provider codes and types (matched lower-case). A code names its cause as plainly as wording does.

type CodeTable = ReadonlyArray<[RegExp, FailoverReason]>;

const BILLING_CODES = /^(?:insufficient_quota|insufficient_balance|billing_error|billing_hard_limit_reached|payment_required|invalidsubscription|1311)$/;
const OVERFLOW_CODES = /^(?:context_length_exceeded|request_too_large|exceed_context_size_error|(?:model_)?context_window_exceeded)$/;
const AUTH_CODES =
  /^(?:authentication_error|permission_error|permission_denied|invalid_api_key(?:_error)?|unauthorized|account_deactivated|api_key_(?:invalid(?:_error)?|revoked|deleted)|deactivated_workspace|ce-011|1113)$/;
/** Codes that name one cause (checked with the wording of the same reason). */
const SPECIFIC_CODES: CodeTable = [
  [/^(?:rate_limit_error|rate_limit_exceeded|rate_limited|resource_exhausted|too_many_requests|quota_exceeded|throttl)/, 'rate_limit'],
  [/^(?:overloaded|unavailable$|modelnotreadyexception$|1305$)/, 'overloaded'],
  [/^(?:not_found_error|model_not_found|model_is_deactivated)$/, 'model_not_found'],
  [
    /^(?:timeout_error|deadline_exceeded|etimedout|econnreset|econnrefused|econnaborted|epipe|enotfound|eai_again|ehostunreach|enetunreach|err_stream_premature_close|und_err_\w+|1234)$/,
    'timeout',
  ],
];
/** Codes that only say "the server failed". */
const GENERIC_SERVER_CODES = /^(?:api_error|server_error|internal_error|internal_server_error|internal)$/;

const codeIn = (f: Facts, re: RegExp): boolean => f.codes.some((c) => re.test(c.toLowerCase()));
const codeReason = (f: Facts, table: CodeTable): FailoverReason | undefined => {
  for (const code of f.codes) {
    const hit = table.find(([re]) => re.test(code.toLowerCase()));
    if (hit) return hit[1];
  }
  return undefined;
};

// ---------------------------------------------------------------------------------------------------------------
// Statuses

/** Statuses that name the cause on their own: wording other than billing does not move them. */
function decisiveStatus(f: Facts): FailoverReason | undefined {
  switch (f.status) {
    case 401:
    case 403:
    case 407:
      return 'auth';
    case 429:
      return 'rate_limit';
    case 402: // a cap that resets by itself is a rate limit, else billing ("usage limit" alone is a plan's cap here)
      return says(f, PERIOD_LIMIT) || says(f, RATE_LIMIT) ? 'rate_limit' : 'billing';
    case 529:
      return 'overloaded';
    default:
      return undefined;
  }
}

/** The rest of the table: consulted after the specific wording. */
function plainStatus(status: number): FailoverReason | undefined {
  if (status === 400 || status === 422) return 'format';
  if (status === 404) return 'model_not_found';
  if (status === 413) return 'context_overflow';
  if ([408, 410, 499, 504, 522, 524].includes(status)) return 'timeout';
  if (status >= 500) return 'server_error';
  return undefined;
}

/** An HTML page: a CDN or proxy spoke, not the provider — its status is all the evidence. */
function htmlStatus(status: number | undefined): FailoverReason {
  if (status === undefined) return 'unknown';
  if ([401, 403, 407].includes(status)) return 'auth';
  if (status === 402) return 'billing';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  return plainStatus(status) ?? 'unknown';
}

/** Statuses a rejected parameter does not override: they say what happened whatever the body adds. */
const OVER_PARAMETER = [401, 402, 403, 407, 429, 499, 529];

/** Wording counts unless the text is prose (markdown headings: an explanation, not an error). */
const says = (f: Facts, list: Phrases): boolean => !f.prose && matches(list, f.text);

const hasName = (f: Facts, ...names: string[]): boolean => f.names.some((n) => names.includes(n));

// ---------------------------------------------------------------------------------------------------------------

interface Rule {
  /** Why the rule sits where it does in the order (documentation). */
  why: string;
  decide: (f: Facts) => FailoverReason | undefined;
}

const when =
  (test: (f: Facts) => boolean, reason: FailoverReason) =>
  (f: Facts): FailoverReason | undefined =>
    test(f) ? reason : undefined;

export const RULES: readonly Rule[] = [
  { why: 'our own abort, or the SDK saying the caller aborted', decide: when((f) => hasName(f, 'AbortError', 'APIUserAbortError') || says(f, CALLER_ABORT), 'aborted') },
  {
    why: 'our idle watchdog or a client timeout',
    decide: when((f) => hasName(f, 'IdleTimeoutError', 'TimeoutError', 'APIConnectionTimeoutError') || codeIn(f, /^etimedout$/), 'timeout'),
  },
  { why: 'our catalogue does not know the model', decide: when((f) => hasName(f, 'ModelNotFoundError'), 'model_not_found') },
  { why: "an HTML page is a proxy's: only its status counts", decide: (f) => (f.html ? htmlStatus(f.status) : undefined) },
  {
    why: 'a rejected parameter is a format error behind any gateway status (not behind 401/402/429/499/529)',
    decide: when((f) => says(f, PARAMETER_REJECTED) && !OVER_PARAMETER.includes(f.status ?? 0), 'format'),
  },
  { why: 'explicit billing beats a period cap and any status', decide: when((f) => codeIn(f, BILLING_CODES) || says(f, BILLING), 'billing') },
  {
    why: 'context overflow: compaction is the only fix',
    decide: when((f) => codeIn(f, OVERFLOW_CODES) || (!f.prose && isContextOverflowText(f.text)), 'context_overflow'),
  },
  { why: 'statuses that name the cause on their own', decide: decisiveStatus },
  { why: 'a key or account rejected in words or code', decide: when((f) => codeIn(f, AUTH_CODES) || says(f, AUTH), 'auth') },
  { why: 'a provider code naming one cause', decide: (f) => codeReason(f, SPECIFIC_CODES) },
  {
    why: 'a cap that resets by itself, or a rate limit in words',
    decide: when((f) => says(f, PERIOD_LIMIT) || says(f, RATE_LIMIT) || says(f, USAGE_LIMIT), 'rate_limit'),
  },
  { why: 'the provider is short of capacity', decide: when((f) => says(f, OVERLOADED), 'overloaded') },
  { why: 'the request is malformed for this server', decide: when((f) => says(f, FORMAT), 'format') },
  { why: 'the model does not exist here', decide: when((f) => says(f, MODEL_NOT_FOUND), 'model_not_found') },
  { why: 'the 402 reason phrase without a status', decide: when((f) => says(f, PAYMENT_REQUIRED), 'billing') },
  { why: 'the status table', decide: (f) => (f.status === undefined ? undefined : plainStatus(f.status)) },
  { why: 'the connection failed or the response was cut off', decide: when((f) => hasName(f, 'APIConnectionError') || says(f, TRANSPORT), 'timeout') },
  { why: 'the provider failed on its side', decide: when((f) => codeIn(f, GENERIC_SERVER_CODES) || says(f, SERVER), 'server_error') },
  { why: 'an invalid request without a better signal', decide: when((f) => codeIn(f, /^invalid_request(?:_error)?$/), 'format') },
];

export function decide(f: Facts): FailoverReason {
  for (const rule of RULES) {
    const reason = rule.decide(f);
    if (reason !== undefined) return reason;
  }
  return 'unknown';
}
