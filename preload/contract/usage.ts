/** D2 contract, X4: the cost ledger and budgets (`usage.*`, the `budget` stream). */

export interface TallyDto {
  /** USD (a number). */
  usd: number;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Calls of models without a price (tokens counted, cost not). */
  unpricedCalls: number;
}

export type BudgetNameDto = 'perChatUsd' | 'perDayUsd' | 'perMonthUsd';
export type BudgetDto = Partial<Record<BudgetNameDto, number>>;

/** `usage.summary` and `agentdesk usage --json`: totals and breakdowns, USD as numbers. */
export interface UsageReportDto {
  currency: 'USD';
  total: TallyDto;
  today: TallyDto & { day: string };
  month: TallyDto & { month: string };
  byChat: Array<TallyDto & { sessionKey: string; sessionId?: string; title: string }>;
  byDay: Array<TallyDto & { day: string }>;
  byModel: Array<TallyDto & { model: string }>;
  byKey: Array<TallyDto & { profileId: string }>;
  budget: BudgetDto;
}

/** The `budget` stream: a warning at 80 % of a budget, or the stop before a call once a budget is reached. */
export interface BudgetData {
  level: 'warning' | 'exceeded';
  budget: BudgetNameDto;
  limitUsd: number;
  spentUsd: number;
  message: string;
}
