/**
 * The failover part of the corpus: every row with its source, OpenClaw's expectation translated to our reasons,
 * and the input our classifier gets.
 */
import type { FailoverReason } from '../../../main/engine/classify.js';
import authFormat from './auth-format.js';
import billing from './billing.js';
import classifyTests from './classify-tests.js';
import legacyBillingA from './legacy-billing-a.js';
import legacyBillingB from './legacy-billing-b.js';
import legacyProviderMatchers from './legacy-provider-matchers.js';
import overflow from './overflow.js';
import rateLimitOverload from './rate-limit-overload.js';
import serverMisc from './server-misc.js';
import structuredMisc from './structured-misc.js';
import type { Group, Note, OcReason, Signal } from './types.js';

/** The golden corpus files first (OpenClaw's order), then the classifier unit tests. */
export const FAILOVER_FILES: ReadonlyArray<[file: string, groups: readonly Group[]]> = [
  ['failover-classification.overflow.cases.ts', overflow],
  ['failover-classification.billing.cases.ts', billing],
  ['failover-classification.rate-limit-overload.cases.ts', rateLimitOverload],
  ['failover-classification.overflow-server-misc.cases.ts', serverMisc],
  ['failover-classification.auth-format.cases.ts', authFormat],
  ['failover-classification.structured-misc.cases.ts', structuredMisc],
  ['failover-classification.legacy-billing-a.cases.ts', legacyBillingA],
  ['failover-classification.legacy-billing-b.cases.ts', legacyBillingB],
  ['failover-classification.legacy-provider-matchers.cases.ts', legacyProviderMatchers],
  ['classifier unit tests (not in the golden corpus)', classifyTests],
];

/**
 * What the outer loop does with a reason: the classes compared. OpenClaw names a 5xx "timeout" or "server_error"
 * (both: back off and retry, then fall back — our `timeout` and `server_error` act the same), and its null
 * ("no failover reason") and `format` are our `format` / `unknown` (fall back, no retry).
 */
export type Outcome =
  | 'compact'
  | 'billing'
  | 'auth'
  | 'rate_limit'
  | 'overloaded'
  | 'transient'
  | 'model_not_found'
  | 'other'
  | 'aborted';

export function outcomeOf(reason: FailoverReason): Outcome {
  switch (reason) {
    case 'context_overflow':
      return 'compact';
    case 'timeout':
    case 'server_error':
      return 'transient';
    case 'format':
    case 'unknown':
      return 'other';
    default:
      return reason;
  }
}

/** OpenClaw's expectation as our reason (the one our classifier gives for that outcome). */
export function translate(oc: OcReason): FailoverReason | undefined {
  switch (oc) {
    case null:
    case 'unclassified':
    case 'no_error_details':
      return 'unknown';
    case 'auth_permanent':
      return 'auth';
    case 'session_expired':
      return undefined;
    default:
      return oc;
  }
}

export interface FailoverCase {
  file: string;
  src: string;
  id: string;
  signal: string | Signal;
  oc: OcReason;
  /** Our expected reason: OpenClaw's translated, or the one a note gives. Undefined when not applicable. */
  expected?: FailoverReason;
  note?: Note;
}

export const FAILOVER_CASES: readonly FailoverCase[] = FAILOVER_FILES.flatMap(([file, groups]) =>
  groups.flatMap((g) =>
    g.rows.map(([id, signal, oc, note]): FailoverCase => {
      const expected = note && 'na' in note ? undefined : note && 'ours' in note ? note.ours : translate(oc);
      return { file, src: g.src, id, signal, oc, ...(expected ? { expected } : {}), ...(note ? { note } : {}) };
    }),
  ),
);

/**
 * The value our classifier is given for a signal. A bare message is a plain text (how a finish reason, a mid-stream
 * error text or a wrapped error reaches it); a signal with a status, code or type is an Error carrying them the way
 * the SDKs' APIError does (`status`, `code`, `type`, `error` = the parsed body).
 */
export function inputOf(signal: string | Signal): unknown {
  if (typeof signal === 'string') return signal;
  const { message = '', status, code, errorType, details } = signal;
  if (status === undefined && code === undefined && errorType === undefined && details === undefined) return message;
  const err = new Error(message) as Error & Record<string, unknown>;
  if (status !== undefined) err.status = status;
  if (code !== undefined) err.code = code;
  if (errorType !== undefined) err.type = errorType;
  if (details !== undefined) {
    const bodies = details.map((d) => {
      try {
        return JSON.parse(d) as unknown;
      } catch {
        return d;
      }
    });
    err.error = bodies.length === 1 ? bodies[0] : bodies;
  }
  return err;
}
