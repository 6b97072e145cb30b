/**
 * E7/E10 overflow recovery, in one place (inventory §9, the reactive path): when a provider answers "context
 * overflow", the outer loop asks `recoverOverflow` for the next step and, when it made the context smaller, starts
 * a fresh attempt from the transcript. The steps, run-scoped:
 * 1. compact — the model summarises the older turns, the record goes into the transcript — at most
 *    MAX_OVERFLOW_COMPACTIONS (3) times per run; a compaction that finds nothing to summarise (or a summary that
 *    would not be smaller) moves straight on, so the budget is never spent on no-op compactions (OpenClaw #78562 /
 *    #150447);
 * 2. then once shorten every tool result as far as it goes — recorded in the transcript (a `tool_results` record,
 *    never an edit), under the session's write lock;
 * 3. then give up with a clear error.
 */
import type { ModelDef, StreamFn } from '../../providers/types.js';
import type { Tool } from '../../tools/types.js';
import type { SessionStore } from '../../sessions/store.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { ClassifiedError } from '../classify.js';
import { AttemptContext, type CompactOutcome } from '../attempt/context-fit.js';
import { buildContext } from '../attempt/attempt.js';
import { missingResultTextFor } from '../attempt/pairing.js';
import { newRunCompaction, type RunCompaction } from '../attempt/run-compaction.js';
import { shortenedResults } from '../attempt/tool-result-truncation.js';
import { toolSpecsOf } from '../../tools/index.js';
import type { UsageMeter } from './usage-meter.js';

/** Compactions the reactive path may run per run (then one truncation, then it gives up). */
export const MAX_OVERFLOW_COMPACTIONS = 3;

export const NOTHING_TO_COMPACT = 'nothing to compact: the session is too small, so the prompt itself is too large for the window';

/** Why the run gives up (the loop shows it after the provider's overflow message). */
export const OVERFLOW_GIVE_UP_MESSAGE =
  'the conversation is still too large after compacting it and shortening tool results; start a new session (/new) or use a model with a larger window';

export type OverflowStep = 'compact' | 'truncate' | 'give_up';

/** The steps taken so far in one run. */
export class OverflowSteps {
  #compactions = 0;
  #truncated = false;
  #nothingToCompact = false;

  /** The next step; calling it records that the step is being taken. */
  next(): OverflowStep {
    if (!this.#nothingToCompact && this.#compactions < MAX_OVERFLOW_COMPACTIONS) {
      this.#compactions++;
      return 'compact';
    }
    if (!this.#truncated) {
      this.#truncated = true;
      return 'truncate';
    }
    return 'give_up';
  }

  /** Whether a step other than giving up is left (the loop offers recovery only then). */
  get canRecover(): boolean {
    return (!this.#nothingToCompact && this.#compactions < MAX_OVERFLOW_COMPACTIONS) || !this.#truncated;
  }

  /** The last 'compact' step could not make the context smaller: it does not count, and no further compaction is tried. */
  nothingToCompact(): void {
    this.#nothingToCompact = true;
    this.#compactions = Math.max(0, this.#compactions - 1);
  }
}

export interface OverflowContext {
  runId: string;
  sessionKey: string;
  sessionId: string;
  model: ModelDef;
  /** The window every budget decision uses (`agent.contextTokens` caps the model's own). */
  contextTokens: number;
  error: ClassifiedError;
  signal: AbortSignal;
  emitter: RunEmitter;
  /** The key of the failed attempt: the summary is written by the same model with the same key. */
  apiKey?: string;
  systemPrompt?: string;
  headers?: Record<string, string>;
  /** The run's compaction state (which steps were taken, the E18 coordination). */
  compaction?: RunCompaction;
  /** E17: bills the summary calls. */
  meter?: UsageMeter;
  /** The run's own stream functions (a run's calls may be wrapped, e.g. by the budget gate); else the recovery's. */
  streamFnFor?: (model: ModelDef) => StreamFn;
}

export interface OverflowOutcome {
  /** True when the stored context was made smaller and a fresh attempt can be started. */
  compacted: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  /** Why nothing could be done (shown in the final error). */
  reason?: string;
}

export type RecoverOverflow = (ctx: OverflowContext) => Promise<OverflowOutcome>;

export interface RecoveryDeps {
  store: SessionStore;
  tools: readonly Tool[];
  now: () => number;
  streamFnFor: (model: ModelDef) => StreamFn;
  idleTimeoutMs: (model: ModelDef) => number;
}

export function createRecoverOverflow(deps: RecoveryDeps): RecoverOverflow {
  return async (ctx: OverflowContext): Promise<OverflowOutcome> => {
    const run = ctx.compaction ?? newRunCompaction();
    let step = run.overflow.next();
    if (step === 'compact') {
      if (!ctx.apiKey) return { compacted: false, reason: 'no key to write a summary with' };
      const history = await deps.store.loadContext(ctx.sessionId);
      const context = new AttemptContext(
        {
          windowTokens: ctx.contextTokens,
          systemPrompt: ctx.systemPrompt ?? '',
          tools: toolSpecsOf(deps.tools),
          emitter: ctx.emitter,
          summary: {
            streamFn: (ctx.streamFnFor ?? deps.streamFnFor)(ctx.model),
            model: ctx.model,
            apiKey: ctx.apiKey,
            idleTimeoutMs: deps.idleTimeoutMs(ctx.model),
            now: deps.now,
            headers: ctx.headers,
            ...(ctx.meter ? { meter: ctx.meter } : {}),
          },
          signal: ctx.signal,
          coordinator: run.coordinator,
          onCompacted: () => void run.compactions++,
          persistCompaction: (record) => deps.store.appendCompaction(ctx.sessionId, record),
          shortenToolResults: (plan) => deps.store.shortenToolResults(ctx.sessionId, plan),
          prepare: (ms) => buildContext(ms, { missingResultText: missingResultTextFor(ctx.model.api) }),
          now: deps.now,
        },
        history,
      );
      let outcome: CompactOutcome;
      try {
        outcome = await context.compact('overflow', { force: true });
      } catch (err) {
        // Reported as a compaction end event; the loop ends the run with this reason.
        return { compacted: false, reason: `the summary could not be written (${(err as Error).message})` };
      }
      if (outcome.compacted) {
        // E18: the retry that depends on this compaction; the next attempt's first call resolves it.
        run.coordinator.beginRetry();
        return { compacted: true, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter };
      }
      run.overflow.nothingToCompact();
      step = run.overflow.next();
    }
    if (step === 'truncate') {
      // Every tool result shortened as far as it goes, recorded in the transcript. Only worth a retry when some
      // result can still be shortened (inventory §9: a fresh session too large for the window ends after one
      // request with "nothing to compact").
      const shortened = await deps.store.shortenToolResults(ctx.sessionId, (messages) => shortenedResults(messages, Number.POSITIVE_INFINITY));
      if (shortened === 0) return { compacted: false, reason: run.compactions > 0 ? OVERFLOW_GIVE_UP_MESSAGE : NOTHING_TO_COMPACT };
      return { compacted: true };
    }
    return { compacted: false, reason: OVERFLOW_GIVE_UP_MESSAGE };
  };
}
