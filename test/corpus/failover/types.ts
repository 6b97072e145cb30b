/**
 * Rows of OpenClaw's failover classification tests, as data. Each row keeps OpenClaw's input and expectation; the
 * suite (test/corpus/corpus.test.ts) translates the expectation to our reasons (see README.md in this folder) and
 * runs the input through `classifyError`.
 */
import type { FailoverReason } from '../../../main/engine/classify.js';

/** OpenClaw's answer: a reason of its `classifyFailoverSignal`, `context_overflow`, or null (no failover reason). */
export type OcReason =
  | 'auth'
  | 'auth_permanent'
  | 'billing'
  | 'rate_limit'
  | 'overloaded'
  | 'server_error'
  | 'timeout'
  | 'format'
  | 'model_not_found'
  | 'session_expired'
  | 'no_error_details'
  | 'unclassified'
  | 'context_overflow'
  | null;

/** OpenClaw's FailoverSignal: what its classifier is given. A bare string is `{ message }`. */
export interface Signal {
  message?: string;
  status?: number;
  code?: string;
  errorType?: string;
  provider?: string;
  /** Raw body fragments (JSON text or plain codes) the provider sent besides the message. */
  details?: readonly string[];
}

export type Note =
  /** We answer differently on purpose: our reason, and why in one line. */
  | { ours: FailoverReason; why: string }
  /**
   * OpenClaw reaches this outcome through another of its functions than the classifier (e.g. the run loop's
   * `isLikelyContextOverflowError`); we have one classifier, so the outcome is what we compare.
   */
  | { ours: FailoverReason; via: string }
  /** Not applicable to AgentDesk (an OpenClaw-internal message, a plugin hook, a backend we do not have), and why. */
  | { na: string };

/** [id, signal, OpenClaw's expectation, note?] */
export type Row = readonly [id: string, signal: string | Signal, oc: OcReason, note?: Note];

export interface Group {
  /** The OpenClaw test file the rows come from. */
  src: string;
  rows: readonly Row[];
}

/** "x" repeated: OpenClaw's long-payload rows pad with x characters past its 512-character scan window. */
export const X = (n: number): string => 'x'.repeat(n);

/** OpenClaw source files the corpus rows name (relative to the openclaw/openclaw repository). */
export const SRC = {
  billing: 'src/agents/embedded-agent-helpers.isbillingerrormessage.test.ts',
  matches: 'src/agents/embedded-agent-helpers/failover-matches.test.ts',
  patterns: 'src/agents/embedded-agent-helpers/provider-error-patterns.test.ts',
  errors: 'src/agents/embedded-agent-helpers/errors.test.ts',
  structured: 'src/agents/embedded-agent-helpers/errors-provider-structured-signals.test.ts',
  http: 'src/agents/provider-http-errors.test.ts',
  openRouter: 'src/agents/openrouter-error-classification.integration.test.ts',
  retry: 'src/llm/utils/retry.test.ts',
  xai: 'extensions/xai/index.test.ts',
  mantle: 'extensions/amazon-bedrock-mantle/index.test.ts',
  bedrock: 'extensions/amazon-bedrock/index.test.ts',
  ollama: 'extensions/ollama/index.test.ts',
  anthropic: 'extensions/anthropic/index.test.ts',
  openai: 'extensions/openai/openai-provider.test.ts',
  google: 'extensions/google/provider-hooks.test.ts',
  liveAuth: 'src/agents/live-auth-keys.ts',
  classify: 'src/agents/failover/classify.test.ts',
  messagePredicates: 'src/agents/failover/classify.message-predicates.test.ts',
  corpusTest: 'src/agents/failover/failover-classification.corpus.test.ts',
  overflowLegacy: 'src/agents/failover/context-overflow.legacy.test.ts',
  xaiTransient: 'src/agents/failover/classify.xai-transient-auth.test.ts',
  precedence429: 'src/agents/failover/provider-429-precedence.test.ts',
} as const;

/** Reasons OpenClaw's corpus leaves to provider plugins, which its corpus turns off ("core fallback"). */
export const HOOKS_OFF =
  'OpenClaw leaves bare provider codes to provider plugins, turned off in its corpus; we read the code itself';
/** OpenClaw-internal texts our engine never receives from a provider. */
export const OC_INTERNAL = (what: string): Note => ({ na: `OpenClaw-internal text (${what}); no provider sends it to us` });
/** The run loop's overflow check, which OpenClaw keeps apart from its classifier. */
export const VIA_LIKELY: Note = { ours: 'context_overflow', via: 'isLikelyContextOverflowError' };
