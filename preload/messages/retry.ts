/**
 * E7/E8 notices while a run retries: one line per failed attempt and what happens next, the same words on the
 * CLI's stderr and in the window's reply ("rate-limited on anthropic:work, switching to anthropic:personal"), and
 * the reason words of a failed run's summary ("… tried anthropic/claude: anthropic:work (key rejected)").
 */
import type { FailoverReasonDto, RetryData } from '../contract.js';
import { formatWait } from './format.js';

/** What happened to an attempt, as a notice says it ("rate-limited on …"). */
export const RETRY_REASON: Readonly<Record<FailoverReasonDto, string>> = {
  rate_limit: 'rate-limited',
  overloaded: 'overloaded',
  billing: 'billing problem',
  auth: 'key rejected',
  timeout: 'timed out',
  context_overflow: 'context too long',
  format: 'request rejected',
  model_not_found: 'model not found',
  server_error: 'server error',
  aborted: 'aborted',
  unknown: 'failed',
};

/** What happened to an attempt, as a failed run's summary lists it ("anthropic:work (key rejected)"). */
export const TRIED_REASON: Readonly<Record<FailoverReasonDto, string>> = {
  rate_limit: 'rate limit',
  overloaded: 'overloaded',
  billing: 'billing',
  auth: 'key rejected',
  timeout: 'timeout',
  context_overflow: 'context overflow',
  format: 'request rejected',
  model_not_found: 'model not found',
  server_error: 'server error',
  aborted: 'aborted',
  unknown: 'error',
};

/** "rate-limited on anthropic:work, switching to anthropic:personal" */
export function retryLine(r: RetryData): string {
  const where = r.profileId ?? `${r.provider}/${r.model}`;
  const what = `${RETRY_REASON[r.reason] ?? 'failed'} on ${where}`;
  const on = (id?: string) => (id && id !== r.profileId ? ` on ${id}` : '');
  const next = r.next;
  switch (next.action) {
    case 'rotate':
      return `${what}, switching to ${next.profileId}`;
    case 'backoff':
      return `${what}, retrying in ${formatWait(next.waitMs)}${on(next.profileId)}`;
    case 'wait':
      return `${what}, waiting ${formatWait(next.waitMs)} as the provider asked${on(next.profileId)}`;
    case 'fallback':
      return `${what}, falling back to ${next.provider}/${next.model}`;
    case 'compact':
      return `${what}, compacting the conversation and retrying`;
    case 'give_up':
      return `${what}, no other key or model to try`;
  }
}

/** The head of a failed run's summary: "Failed after 3 attempts" / "Stopped after 8 attempts (the retry limit)". */
export function failedAfter(attempts: number, retryLimit: boolean): string {
  return retryLimit ? `Stopped after ${attempts} attempts (the retry limit)` : `Failed after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
}

/** A failed run that tried several things: "Failed after 2 attempts — tried p/m: p:a (key rejected). Last error: …" */
export function runFailedSummary(head: string, tried: string, last: string): string {
  return `${head} — tried ${tried}. Last error: ${last}`;
}
