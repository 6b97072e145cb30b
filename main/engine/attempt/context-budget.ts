/**
 * E10 preemptive compaction, the pure planning half (numbers: inventory §9):
 *
 * - window = the model's context window capped by `agent.contextTokens` (effectiveContextTokens);
 * - reserve = min(20 000, 0.25 × window) for the reply; budget = window − reserve; overflow = estimate − budget;
 * - the estimate (system prompt + tool definitions + messages, tokens.ts) is scaled by the ratio between what the
 *   provider last reported and what we estimated for that same request (calibration: the offline estimator
 *   misses tokenizer differences and framing);
 * - routes: `fits`; `compact` when no tool-result text can be reduced; `truncate_tool_results` when shrinking tool
 *   results frees at least max(4 × overflow + 2 048, 6 × overflow) tokens; `compact_then_truncate` otherwise;
 * - compaction keeps about 20 000 recent tokens (less in a small window) and never splits a tool call from its
 *   result: the kept tail starts at a user or assistant message, never at a tool result.
 */
import type { Message } from '../messages.js';
import type { ToolSpec } from '../../providers/types.js';
import { estimateMessageTokens, estimateMessagesTokens, estimateTokens } from './tokens.js';

export const RESERVE_TOKENS_MAX = 20_000;
export const RESERVE_SHARE = 0.25;
export const KEEP_RECENT_TOKENS = 20_000;
/** A small window keeps at most this share of its budget verbatim, so a compaction frees real room. */
export const KEEP_RECENT_SHARE = 0.3;
/** Calibration ratios outside this range come from a broken usage report and are clamped. */
export const RATIO_MIN = 0.5;
export const RATIO_MAX = 3;

export type PreemptiveRoute = 'fits' | 'truncate_tool_results' | 'compact_then_truncate' | 'compact';

export interface Budget {
  window: number;
  reserve: number;
  /** Tokens a request may use. */
  budget: number;
}

export function contextBudget(windowTokens: number): Budget {
  const window = Math.max(1, Math.floor(windowTokens));
  const reserve = Math.min(RESERVE_TOKENS_MAX, Math.floor(window * RESERVE_SHARE));
  return { window, reserve, budget: window - reserve };
}

export function keepRecentTokens(budget: number): number {
  return Math.min(KEEP_RECENT_TOKENS, Math.floor(budget * KEEP_RECENT_SHARE));
}

/** Uncalibrated estimate of one request: system prompt, tool definitions and messages. */
export function estimateRequestTokens(systemPrompt: string, messages: readonly Message[], tools: readonly ToolSpec[] = []): number {
  return estimateMessagesTokens(messages, systemPrompt) + (tools.length > 0 ? estimateTokens(JSON.stringify(tools)) : 0);
}

export const promptTokensOf = (u: { input: number; cacheRead: number; cacheWrite: number }): number =>
  u.input + u.cacheRead + u.cacheWrite;

/** reported / estimated, clamped; undefined when either side is unknown. */
export function calibrationRatio(reportedPromptTokens: number, estimatedTokens: number): number | undefined {
  if (!(reportedPromptTokens > 0) || !(estimatedTokens > 0)) return undefined;
  return Math.min(RATIO_MAX, Math.max(RATIO_MIN, reportedPromptTokens / estimatedTokens));
}

/**
 * The calibration a loaded history offers: the last successful assistant message at or after `fromIndex` (messages
 * before it were sent exactly as they are now) with a prompt size, against our estimate of that request.
 */
export function calibrationFromHistory(
  messages: readonly Message[],
  fromIndex: number,
  estimateBefore: (count: number) => number,
): number | undefined {
  for (let i = messages.length - 1; i >= Math.max(0, fromIndex); i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || m.stopReason === 'error' || m.stopReason === 'aborted') continue;
    const reported = promptTokensOf(m.usage);
    if (reported > 0) return calibrationRatio(reported, estimateBefore(i));
  }
  return undefined;
}

export const calibrated = (estimate: number, ratio: number | undefined): number => Math.ceil(estimate * (ratio ?? 1));

export interface RoutePlan extends Budget {
  route: PreemptiveRoute;
  estimate: number;
  /** Tokens over the budget (≤ 0 when it fits). */
  overflow: number;
}

/** Picks the cheapest route that brings a request of `estimate` tokens under budget. */
export function planRoute(estimate: number, windowTokens: number, reducibleTokens: number): RoutePlan {
  const b = contextBudget(windowTokens);
  const overflow = estimate - b.budget;
  let route: PreemptiveRoute;
  if (overflow <= 0) route = 'fits';
  else if (reducibleTokens <= 0) route = 'compact';
  else if (reducibleTokens >= Math.max(4 * overflow + 2048, 6 * overflow)) route = 'truncate_tool_results';
  else route = 'compact_then_truncate';
  return { ...b, route, estimate, overflow };
}

/**
 * Index of the first message kept verbatim: the tail from it holds at least `keepTokens` (or everything), and it
 * is not a tool result, so no tool call is separated from its result, and it is at or before the latest user
 * message, so the prompt being answered stays verbatim. 0 = nothing to summarise (everything fits in `keepTokens`,
 * or nothing precedes the latest prompt). A caller that must free room anyway asks again with a smaller `keepTokens`.
 */
export function findCutPoint(messages: readonly Message[], keepTokens: number): number {
  // The latest user message (the prompt being answered) is never summarised away: the cut lies at or before it.
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  let tail = 0;
  for (let i = messages.length - 1; i >= 1; i--) {
    tail += estimateMessageTokens(messages[i]!);
    if (i > lastUser) continue;
    if (tail >= keepTokens && messages[i]!.role !== 'toolResult') return i;
  }
  return 0;
}
