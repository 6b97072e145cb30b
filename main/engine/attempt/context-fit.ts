/**
 * The context of one attempt and how it is made to fit before every send (E10), with the I/O the pure planning
 * (context-budget.ts, tool-result-truncation.ts) leaves out: running a compaction, recording it in the transcript
 * and reporting it as `compaction` events.
 *
 * State: the latest summary, the raw messages since its kept tail (exactly as they are in the transcript, so a
 * compaction record can count the messages it keeps), and the calibration ratio (what the provider reported for
 * the last request / what we estimated for it).
 *
 * The standard caps (per result, aggregate) are a view: the same caps give the same view on every send. The
 * `truncate_tool_results` route goes further, as the seed does: the oversized stored results are shortened under
 * the session's write lock (a `tool_results` record — the transcript is never edited) and the send is skipped
 * (AttemptRestart): the outer loop starts a fresh attempt from the shortened session.
 */
import type { Message, Usage } from '../messages.js';
import type { ToolSpec } from '../../providers/types.js';
import type { CompactionData } from '../../../preload/contract.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { CompactionCoordinator } from '../run/compaction-coordinator.js';
import {
  calibrated,
  calibrationFromHistory,
  calibrationRatio,
  contextBudget,
  estimateRequestTokens,
  findCutPoint,
  keepRecentTokens,
  planRoute,
  promptTokensOf,
  type PreemptiveRoute,
} from './context-budget.js';
import { applyToolResultBudget, reducibleToolResultChars, shortenedResults, shrinkToolResults, toolResultCaps, type ToolResultCaps } from './tool-result-truncation.js';
import { CompactionError, generateSummary, summaryMessage, type SummaryDeps } from './summary.js';
import { estimateMessageTokens } from './tokens.js';
import { classifyError } from '../classify.js';

export type CompactionReason = 'preemptive' | 'overflow' | 'manual';

export interface CompactionRecordInput {
  summary: string;
  keptMessages: number;
  tokensBefore: number;
  tokensAfter: number;
  reason: CompactionReason;
  timestamp: number;
}

export interface ContextDeps {
  /** The model's window capped by agent.contextTokens. */
  windowTokens: number;
  systemPrompt: string;
  tools: readonly ToolSpec[];
  emitter: RunEmitter;
  /** The model call that writes summaries (same StreamFn and key as the run); the signal comes from `run`. */
  summary: Omit<SummaryDeps, 'signal'>;
  signal: AbortSignal;
  coordinator: CompactionCoordinator;
  /** Called after each recorded compaction (the run counts them). */
  onCompacted?: () => void;
  persistCompaction: (record: CompactionRecordInput) => Promise<void>;
  /** Shortens stored tool results under the session's write lock (plan: the new text of those to shorten); returns how many. */
  shortenToolResults?: (plan: (messages: readonly Message[]) => { toolCallId: string; content: string }[]) => Promise<number>;
  /** Turns raw messages into what may be sent (pairing repair, failed turns left out). */
  prepare: (messages: readonly Message[]) => Message[];
  now: () => number;
}

export interface ContextInit {
  summary?: string;
  messages: readonly Message[];
  /** Index of the first message written after the latest compaction (calibration only trusts those). */
  sinceCompaction?: number;
}

/** What a compaction did: recorded (tokens before → after), or nothing — too little to summarise, or a summary that would not make the context smaller. */
export type CompactOutcome =
  | { compacted: true; tokensBefore: number; tokensAfter: number }
  | { compacted: false; reason: 'too_short' | 'not_smaller' };

/**
 * Older messages worth fewer tokens than this are not summarised: the summary itself (up to ~400 words, framed)
 * is about as large, so the context could only grow (a `/compact` on a short chat used to answer "1988 → 2707").
 */
export const MIN_SUMMARISED_TOKENS = 1_000;

/** The `truncate_tool_results` route shortened the stored results: the send is skipped, the outer loop starts over. */
export class AttemptRestart extends Error {
  override name = 'AttemptRestart';
  constructor(readonly shortened: number) {
    super(`Shortened ${shortened} stored tool result(s); a fresh attempt starts from them.`);
  }
}

/** Characters to remove to free `tokens` calibrated tokens (≈ 4 characters a token, 10 % margin). */
const charsFor = (tokens: number, ratio: number): number => Math.ceil((tokens * 4 * 1.1) / ratio);

export class AttemptContext {
  summary: string | undefined;
  messages: Message[];
  ratio: number | undefined;
  /** Compactions this attempt recorded. */
  compactions = 0;
  /** The route of the last `prepare()` (for tests and logs). */
  lastRoute: PreemptiveRoute = 'fits';
  readonly caps: ToolResultCaps;
  #lastSentEstimate = 0;

  constructor(
    private readonly deps: ContextDeps,
    init: ContextInit,
  ) {
    this.summary = init.summary;
    this.messages = [...init.messages];
    this.caps = toolResultCaps(deps.windowTokens);
    this.ratio = calibrationFromHistory(this.messages, init.sinceCompaction ?? 0, (count) =>
      this.#raw(this.#budgeted(this.#view(this.summary, this.messages.slice(0, count)))),
    );
  }

  push(message: Message): void {
    this.messages.push(message);
  }

  /** Calibrates the estimator with what the provider reported for the request `prepare()` returned last. */
  observe(usage: Usage): void {
    this.ratio = calibrationRatio(promptTokensOf(usage), this.#lastSentEstimate) ?? this.ratio;
  }

  #view(summary: string | undefined, messages: readonly Message[]): Message[] {
    // The summary goes in front after `prepare`: it is context, not a user turn that went unanswered.
    const prepared = this.deps.prepare(messages);
    return summary ? [summaryMessage(summary, 0), ...prepared] : prepared;
  }

  #budgeted(view: Message[]): Message[] {
    return applyToolResultBudget(view, this.caps).messages;
  }

  /** The system prompt and the tool definitions: the same for every send of the attempt, estimated once. */
  #fixed: number | undefined;
  /** Messages are never changed in place (a shortened one is a copy): each one's estimate is computed once. */
  readonly #perMessage = new WeakMap<Message, number>();

  #raw(view: readonly Message[]): number {
    this.#fixed ??= estimateRequestTokens(this.deps.systemPrompt, [], this.deps.tools);
    let sum = this.#fixed;
    for (const m of view) {
      let n = this.#perMessage.get(m);
      if (n === undefined) this.#perMessage.set(m, (n = estimateMessageTokens(m)));
      sum += n;
    }
    return sum;
  }

  /** Calibrated estimate of sending `view`. */
  estimate(view: readonly Message[]): number {
    return calibrated(this.#raw(view), this.ratio);
  }

  /** The context as it would be sent now (caps applied, no compaction). */
  current(): Message[] {
    return this.#budgeted(this.#view(this.summary, this.messages));
  }

  /**
   * E10: the context to send, made to fit by the cheapest route. Throws AttemptRestart when it shortened stored
   * tool results instead (the seed's truncate_tool_results_only: skip the send, the outer loop starts over).
   */
  async prepare(): Promise<Message[]> {
    const { budget } = contextBudget(this.deps.windowTokens);
    let view = this.current();
    const ratio = this.ratio ?? 1;
    const plan = planRoute(this.estimate(view), this.deps.windowTokens, Math.floor((reducibleToolResultChars(view) / 4) * ratio));
    this.lastRoute = plan.route;
    if (plan.route === 'truncate_tool_results') {
      const charsToFree = charsFor(plan.overflow, ratio);
      const shortened = this.deps.shortenToolResults ? await this.deps.shortenToolResults((stored) => shortenedResults(stored, charsToFree)) : 0;
      if (shortened > 0) throw new AttemptRestart(shortened);
      view = shrinkToolResults(view, charsToFree).messages; // nothing stored could be shortened: the view at least
    } else if (plan.route === 'compact' || plan.route === 'compact_then_truncate') {
      try {
        await this.compact('preemptive');
      } catch {
        // Reported as a compaction end event with its error; the send goes ahead and the overflow path takes over.
      }
      view = this.current();
      const over = this.estimate(view) - budget;
      if (over > 0) view = shrinkToolResults(view, charsFor(over, ratio)).messages;
    }
    this.#lastSentEstimate = this.#raw(view);
    return view;
  }

  /**
   * Summarises the older messages and records the compaction. A compaction never makes the context larger: with
   * too little to summarise it does not start, and a summary that would not be smaller is not recorded (the history
   * stays as it is). `force` (overflow, manual) keeps fewer recent tokens when the usual tail would leave nothing
   * to summarise.
   */
  async compact(reason: CompactionReason, opts: { force?: boolean } = {}): Promise<CompactOutcome> {
    const keep = keepRecentTokens(contextBudget(this.deps.windowTokens).budget);
    let cut = findCutPoint(this.messages, keep);
    if (cut === 0 && opts.force) cut = findCutPoint(this.messages, Math.floor(keep / 4)) || findCutPoint(this.messages, 0);
    if (cut === 0) return { compacted: false, reason: 'too_short' };
    const older = this.messages.slice(0, cut);
    const kept = this.messages.slice(cut);
    const olderTokens = this.estimate(this.deps.prepare(older)) - this.estimate([]); // the messages alone
    if (!this.summary && olderTokens < MIN_SUMMARISED_TOKENS) return { compacted: false, reason: 'not_smaller' };
    const tokensBefore = this.estimate(this.current());
    this.#emit({ phase: 'start', reason });
    try {
      const summary = await this.deps.coordinator.run(this.deps.signal, (signal) =>
        generateSummary(
          { ...this.deps.summary, signal },
          { previousSummary: this.summary, messages: older, windowTokens: this.deps.windowTokens, ratio: this.ratio },
        ),
      );
      const tokensAfter = this.estimate(this.#budgeted(this.#view(summary, kept)));
      if (tokensAfter >= tokensBefore) {
        // Never larger: the history is kept as it is (the summary call is billed all the same).
        this.#emit({ phase: 'end', reason, tokensBefore, tokensAfter: tokensBefore, error: 'nothing to compact: a summary would not make the conversation smaller' });
        return { compacted: false, reason: 'not_smaller' };
      }
      await this.deps.persistCompaction({ summary, keptMessages: kept.length, tokensBefore, tokensAfter, reason, timestamp: this.deps.now() });
      this.summary = summary;
      this.messages = kept;
      this.compactions++;
      this.deps.onCompacted?.();
      this.#emit({ phase: 'end', reason, tokensBefore, tokensAfter });
      return { compacted: true, tokensBefore, tokensAfter };
    } catch (err) {
      const error = err instanceof CompactionError ? err.message : classifyError(err).message;
      this.#emit({ phase: 'end', reason, tokensBefore, tokensAfter: tokensBefore, error });
      throw err;
    }
  }

  #emit(data: CompactionData): void {
    this.deps.emitter.emit('compaction', data);
  }
}
