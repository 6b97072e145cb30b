/**
 * X4 (pure): budgets — `agent.budget.perChatUsd`, `perDayUsd`, `perMonthUsd` — against what was spent. Checked
 * before each model call: a budget already reached stops the run before the request (a reply that crosses a budget
 * finishes its call and stops before the next); 80 % of a budget is a warning.
 */

export type BudgetName = 'perChatUsd' | 'perDayUsd' | 'perMonthUsd';
export type BudgetConfig = Partial<Record<BudgetName, number>>;

export const BUDGET_NAMES: readonly BudgetName[] = ['perChatUsd', 'perDayUsd', 'perMonthUsd'];
export const WARN_SHARE = 0.8;

export interface BudgetState {
  budget: BudgetName;
  limitUsd: number;
  spentUsd: number;
}

export interface Spent {
  chat: number;
  day: number;
  month: number;
}

const SPENT_OF: Record<BudgetName, keyof Spent> = { perChatUsd: 'chat', perDayUsd: 'day', perMonthUsd: 'month' };

export function checkBudgets(budget: BudgetConfig | undefined, spent: Spent): { exceeded?: BudgetState; warnings: BudgetState[] } {
  const warnings: BudgetState[] = [];
  for (const name of BUDGET_NAMES) {
    const limit = budget?.[name];
    if (limit === undefined) continue;
    const state: BudgetState = { budget: name, limitUsd: limit, spentUsd: spent[SPENT_OF[name]] };
    if (state.spentUsd >= limit) return { exceeded: state, warnings };
    if (state.spentUsd >= limit * WARN_SHARE) warnings.push(state);
  }
  return { warnings };
}

/** "$0.0123": cents for larger amounts, four decimals below a dollar (small budgets stay readable). */
export function usd(n: number): string {
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n === 0) return '$0';
  return `$${n.toFixed(4)}`;
}

const WHO: Record<BudgetName, string> = { perChatUsd: 'this chat has', perDayUsd: 'today has', perMonthUsd: 'this month has' };

/** The one line a stopped run shows (CLI stderr, the chat's error). */
export const exceededLine = (s: BudgetState): string =>
  `Budget reached: agent.budget.${s.budget} is ${usd(s.limitUsd)} and ${WHO[s.budget]} spent ${usd(s.spentUsd)}; the model was not called. Raise the budget (Settings › Usage or config.json) to go on.`;

export const warningLine = (s: BudgetState): string =>
  `${Math.floor((s.spentUsd / s.limitUsd) * 100)} % of agent.budget.${s.budget} (${usd(s.limitUsd)}) used: ${WHO[s.budget]} spent ${usd(s.spentUsd)}.`;
