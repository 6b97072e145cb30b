/**
 * Turns a run's error line into something a person can act on: what kind of problem it is and which actions fit.
 * Works on the text alone, so a live error and the same error read back from the transcript look the same.
 */

export type ErrorAction = 'retry' | 'settings' | 'switch-model' | 'budget';

export interface ErrorView {
  kind: 'key' | 'rate' | 'network' | 'context' | 'model' | 'budget' | 'other';
  /** X4: the budget that stopped the run (kind 'budget'). */
  budget?: 'perChatUsd' | 'perDayUsd' | 'perMonthUsd';
  /** One line: the first line of the message, without a trailing provider dump. */
  line: string;
  actions: ErrorAction[];
}

/** A run the person stopped (Stop / Esc): shown as stopped, not as a failure. */
export function isStopText(text: string | undefined): boolean {
  return text !== undefined && /^(the run was stopped|stopped|request aborted)\b/i.test(text.trim());
}

const RULES: [RegExp, ErrorView['kind'], ErrorAction[]][] = [
  [/rejected the API key|No API key|billing or quota|keychain/i, 'key', ['settings', 'switch-model', 'retry']],
  [/rate limit|overloaded|server error/i, 'rate', ['retry', 'switch-model']],
  [/connection failed|timed out|network|ECONN|socket/i, 'network', ['retry']],
  [/context window|too long/i, 'context', ['retry', 'switch-model']],
  [/model not found|unknown model/i, 'model', ['switch-model']],
];

export function describeError(text: string): ErrorView {
  const line = (text.split('\n')[0] ?? '').trim() || 'The run ended with an error.';
  const budget = /^Budget reached: agent\.budget\.(perChatUsd|perDayUsd|perMonthUsd)\b/.exec(line);
  if (budget) return { kind: 'budget', line, actions: ['budget'], budget: budget[1] as ErrorView['budget'] };
  for (const [re, kind, actions] of RULES) if (re.test(text)) return { kind, line, actions };
  return { kind: 'other', line, actions: ['retry', 'switch-model'] };
}
