/**
 * Turns a run's error line into something a person can act on: what kind of problem it is and which actions fit.
 * Works on the text alone, so a live error and the same error read back from the transcript look the same.
 */

import { errorKind, type ErrorKind } from '../../../preload/messages/kinds.js';

export type ErrorAction = 'retry' | 'settings' | 'switch-model' | 'budget';

export interface ErrorView {
  kind: ErrorKind;
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

/** The actions each kind of problem offers (the kind itself: the message catalogue, preload/messages/kinds.ts). */
const ACTIONS: Record<ErrorKind, ErrorAction[]> = {
  key: ['settings', 'switch-model', 'retry'],
  rate: ['retry', 'switch-model'],
  network: ['retry'],
  context: ['retry', 'switch-model'],
  model: ['switch-model'],
  budget: ['budget'],
  other: ['retry', 'switch-model'],
};

export function describeError(text: string): ErrorView {
  const line = (text.split('\n')[0] ?? '').trim() || 'The run ended with an error.';
  const budget = /^Budget reached: agent\.budget\.(perChatUsd|perDayUsd|perMonthUsd)\b/.exec(line);
  if (budget) return { kind: 'budget', line, actions: ACTIONS.budget, budget: budget[1] as ErrorView['budget'] };
  const kind = errorKind(text);
  return { kind, line, actions: ACTIONS[kind] };
}
