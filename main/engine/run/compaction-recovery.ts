/**
 * The compaction behind the outer loop's overflow hand-off (overflow.ts): when a provider answers "context
 * overflow", the loop calls `recoverOverflow` and, when it reports `compacted`, starts a fresh attempt from the
 * transcript. The steps (inventory §9, overflow-recovery.ts): compact — the model summarises the older turns, the
 * record goes into the transcript — at most 3 times per run; a compaction that finds nothing to summarise moves
 * straight on; then once shorten every tool result as far as it goes; then give up with a clear error.
 */
import type { ModelDef, StreamFn } from '../../providers/types.js';
import type { Tool } from '../../tools/types.js';
import type { SessionStore } from '../../sessions/store.js';
import { AttemptContext, type CompactOutcome } from '../attempt/context-fit.js';
import { buildContext } from '../attempt/attempt.js';
import { missingResultTextFor } from '../attempt/pairing.js';
import { newRunCompaction } from '../attempt/run-compaction.js';
import { OVERFLOW_GIVE_UP_MESSAGE } from '../attempt/overflow-recovery.js';
import { reducibleToolResultChars } from '../attempt/tool-result-truncation.js';
import { toolSpecsOf } from '../../tools/index.js';
import type { OverflowContext, OverflowRecovery, RecoverOverflow } from './overflow.js';

export const NOTHING_TO_COMPACT = 'nothing to compact: the session is too small, so the prompt itself is too large for the window';

export interface RecoveryDeps {
  store: SessionStore;
  tools: readonly Tool[];
  workspace: string;
  now: () => number;
  streamFnFor: (model: ModelDef) => StreamFn;
  idleTimeoutMs: (model: ModelDef) => number;
}

export function createRecoverOverflow(deps: RecoveryDeps): RecoverOverflow {
  return async (ctx: OverflowContext): Promise<OverflowRecovery> => {
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
            streamFn: deps.streamFnFor(ctx.model),
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
      // Only worth a retry when some tool result can still be shortened (inventory §9: a fresh session that is
      // too large for the window ends after one request with "nothing to compact").
      const history = await deps.store.loadContext(ctx.sessionId);
      if (reducibleToolResultChars(history.messages) === 0) {
        return { compacted: false, reason: run.compactions > 0 ? OVERFLOW_GIVE_UP_MESSAGE : NOTHING_TO_COMPACT };
      }
      run.shrinkAll = true;
      return { compacted: true };
    }
    return { compacted: false, reason: OVERFLOW_GIVE_UP_MESSAGE };
  };
}
