/**
 * X4 gateway methods: `usage.summary` (the ledger added up: total, today, this month, by chat, day, model and key,
 * with chat titles and the budgets in force) and `usage.setBudget` (Settings › Usage: budgets in settings.json; null
 * removes one).
 */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { BudgetDto, UsageReportDto } from '../../../preload/contract.js';
import { usageReport } from '../../cli/usage-command.js';
import type { SessionStore } from '../../sessions/store.js';
import type { SettingsStore } from '../../settings/store.js';
import type { Settings } from '../../settings/schema.js';
import { BUDGET_NAMES, type BudgetConfig } from '../../usage/budget.js';
import type { Ledger } from '../../usage/ledger.js';
import { summarize } from '../../usage/summary.js';
import { validatedMethods } from '../params.js';

const amount = lazy(() => z.number().positive().max(1_000_000).nullable().optional());

export const usageSchemas = lazy(() => ({
  'usage.summary': z.object({}).strict(),
  'usage.setBudget': z.object({ perChatUsd: amount, perDayUsd: amount, perMonthUsd: amount }).strict(),
}));

export interface UsageMethodsContext {
  ledger: Ledger;
  store: SessionStore;
  settings: SettingsStore;
  budget: () => BudgetConfig | undefined;
  reconfigure: () => void;
  now: () => number;
}

export function createUsageMethods(ctx: UsageMethodsContext) {
  return validatedMethods<typeof usageSchemas, { 'usage.summary': UsageReportDto; 'usage.setBudget': BudgetDto }>(usageSchemas, {
    'usage.summary': async () => {
      await ctx.ledger.refresh().catch(() => undefined);
      const titles = new Map<string, string>();
      for (const s of await ctx.store.list()) {
        titles.set(s.sessionId, s.title);
        titles.set(s.sessionKey, s.title);
      }
      return usageReport(summarize(ctx.ledger.entries, ctx.now()), titles, ctx.budget());
    },
    'usage.setBudget': async (p) => {
      const next: BudgetConfig = { ...(ctx.budget() ?? {}) };
      for (const name of BUDGET_NAMES) {
        const v = p[name];
        if (v === null) delete next[name];
        else if (v !== undefined) next[name] = v;
      }
      ctx.settings.update((s): Settings => ({ ...s, budget: next }));
      ctx.reconfigure();
      return ctx.budget() ?? {};
    },
  });
}
