/**
 * X4: the budget gate every model call of a run passes — a StreamFn wrapper the gateway puts around each run's
 * stream functions (so tool-loop calls, compaction summaries and retries are all checked). No AsyncLocalStorage: on
 * Node 20 it slows every promise of the process.
 * Over budget: the call ends at once with one `error` event (a BudgetExceededError; no request is sent) and the run
 * stops (the outer loop neither retries nor falls back on it). At 80 % a budget warns once per run.
 */
import { emptyUsage } from '../engine/messages.js';
import type { StreamFn } from '../providers/types.js';
import { preflight } from '../providers/preflight.js';
import { checkBudgets, exceededLine, warningLine, type BudgetConfig, type BudgetState } from './budget.js';
import type { Ledger } from './ledger.js';
import { chatSpent, localDay } from './summary.js';

export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
  constructor(readonly state: BudgetState) {
    super(exceededLine(state));
  }
}

/** What the `budget` stream carries (a warning, or the stop). */
export interface BudgetEventData extends BudgetState {
  level: 'warning' | 'exceeded';
  message: string;
}

/** The run whose model calls a gate checks (the gateway makes one gated StreamFn per run). */
export interface RunScope {
  sessionKey: string;
  sessionId: string;
  runId: string;
  emit: (data: BudgetEventData) => void;
  /** Budgets this run has warned about already. */
  warned?: Set<string>;
}

export interface GateDeps {
  ledger: Ledger;
  budget: () => BudgetConfig | undefined;
  now: () => number;
  dayOf?: (ts: number) => string;
}

/** What was spent, as the budgets count it: this chat, today, this month (every process's calls). */
export async function spentFor(deps: GateDeps, chat: { sessionKey: string; sessionId?: string }): Promise<{ chat: number; day: number; month: number }> {
  await deps.ledger.refresh();
  const dayOf = deps.dayOf ?? localDay;
  const today = dayOf(deps.now());
  const month = today.slice(0, 7);
  let day = 0;
  let monthUsd = 0;
  for (const e of deps.ledger.entries) {
    const d = dayOf(e.ts);
    if (d === today) day += e.cost ?? 0;
    if (d.startsWith(month)) monthUsd += e.cost ?? 0;
  }
  return { chat: chatSpent(deps.ledger.entries, chat), day, month: monthUsd };
}

export function withBudget(inner: StreamFn, deps: GateDeps, scope: RunScope): StreamFn {
  return preflight(inner, async (req) => {
    const budget = deps.budget();
    if (!budget || Object.keys(budget).length === 0) return req;
    let verdict: ReturnType<typeof checkBudgets>;
    try {
      verdict = checkBudgets(budget, await spentFor(deps, scope));
    } catch {
      verdict = { warnings: [] }; // an unreadable ledger never stops work; the next call checks again
    }
    for (const w of verdict.warnings) {
      const warned = (scope.warned ??= new Set());
      if (warned.has(w.budget)) continue;
      warned.add(w.budget);
      scope.emit({ level: 'warning', ...w, message: warningLine(w) });
    }
    if (!verdict.exceeded) return req;
    const error = new BudgetExceededError(verdict.exceeded);
    scope.emit({ level: 'exceeded', ...verdict.exceeded, message: error.message });
    return {
      type: 'error',
      error,
      message: { role: 'assistant', content: [], provider: req.model.provider, model: req.model.id, api: req.model.api, usage: emptyUsage(), stopReason: 'error', errorMessage: error.message, timestamp: deps.now() },
    };
  });
}
