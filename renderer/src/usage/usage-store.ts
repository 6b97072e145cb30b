/**
 * X4 in the window: the cost ledger's summary (`usage.summary`: per chat for the sidebar and the chat header, the
 * Usage page in Settings), refreshed when a run ends; budget warnings and stops from the `budget` stream; budgets
 * changed through `usage.setBudget`.
 */
import { create } from 'zustand';
import type { AgentDeskApi, BudgetData, BudgetDto, UsageReportDto } from '../../../preload/contract.js';

interface UsageState {
  report?: UsageReportDto;
  /** USD per session key (the sidebar and the chat header). */
  byChat: Record<string, number>;
  /** The latest budget warning (shown once, under the chat). */
  warning?: BudgetData & { runId: string; sessionKey: string };
  note?: { kind: 'error' | 'ok'; text: string };
}

export const useUsage = create<UsageState>(() => ({ byChat: {} }));

let api: AgentDeskApi | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export async function loadUsage(): Promise<void> {
  if (!api) return;
  try {
    const report = await api.request('usage.summary', {});
    const byChat: Record<string, number> = {};
    for (const c of report.byChat) byChat[c.sessionKey] = (byChat[c.sessionKey] ?? 0) + c.usd;
    useUsage.setState({ report, byChat });
  } catch {
    // an older gateway or a passing failure: the totals stay as they were
  }
}

/** Subscribes to run events (once at start-up): totals refresh after each run; budget events are kept. */
export function startUsage(a: AgentDeskApi): void {
  api = a;
  void loadUsage();
  a.onEvent((event) => {
    if (event.stream === 'budget') {
      const data = event.data as BudgetData;
      if (data.level === 'warning') useUsage.setState({ warning: { ...data, runId: event.runId, sessionKey: event.sessionKey } });
    }
    const phase = (event.data as { phase?: string }).phase;
    if (event.stream === 'usage' || (event.stream === 'lifecycle' && (phase === 'end' || phase === 'error'))) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void loadUsage(), 150);
    }
  });
}

export async function setBudget(patch: { [K in keyof BudgetDto]?: number | null }): Promise<boolean> {
  if (!api) return false;
  try {
    await api.request('usage.setBudget', patch);
    useUsage.setState({ note: { kind: 'ok', text: 'Budgets saved.' }, warning: undefined }); // the next call warns again if still near
    await loadUsage();
    return true;
  } catch (err) {
    useUsage.setState({ note: { kind: 'error', text: message(err) } });
    return false;
  }
}

export const dismissBudgetWarning = (): void => useUsage.setState({ warning: undefined });

/** "$0.0123", "$1.25" — four decimals below a cent so small chats show something. */
export function usdText(n: number): string {
  if (n === 0) return '$0.00';
  if (n < 0.01) return `$${n.toFixed(4)}`;
  return `$${n.toFixed(2)}`;
}
