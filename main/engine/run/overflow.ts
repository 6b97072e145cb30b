/**
 * E7 hand-off for context-overflow recovery: the outer loop calls `recoverOverflow` when an attempt fails with
 * `context_overflow` (at most MAX_OVERFLOW_RECOVERIES times per run) and retries when it reports `compacted`.
 * Compaction plugs in here; without it an overflow ends the run with a clear error.
 */
import type { ModelDef } from '../../providers/types.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { ClassifiedError } from '../classify.js';
import type { RunCompaction } from '../attempt/run-compaction.js';
import type { UsageMeter } from './usage-meter.js';

/** Inventory §9: at most 3 compactions, then one tool-result truncation (compaction-recovery.ts takes the steps). */
export const MAX_OVERFLOW_RECOVERIES = 4;

export interface OverflowContext {
  runId: string;
  sessionKey: string;
  sessionId: string;
  model: ModelDef;
  /** The window every budget decision uses (`agent.contextTokens` caps the model's own). */
  contextTokens: number;
  /** 1-based number of this recovery within the run. */
  recovery: number;
  error: ClassifiedError;
  signal: AbortSignal;
  emitter: RunEmitter;
  /** The key of the failed attempt: the summary is written by the same model with the same key. */
  apiKey?: string;
  systemPrompt?: string;
  headers?: Record<string, string>;
  /** The run's compaction state (which overflow steps were taken). */
  compaction?: RunCompaction;
  /** E17: bills the summary calls. */
  meter?: UsageMeter;
}

export interface OverflowRecovery {
  /** True when the transcript was made smaller and the attempt can be retried. */
  compacted: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  /** Why nothing could be compacted (shown in the final error). */
  reason?: string;
}

export type RecoverOverflow = (ctx: OverflowContext) => Promise<OverflowRecovery>;
