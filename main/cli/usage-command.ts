/**
 * `agentdesk usage [--json] [--home DIR]` (X4): what model calls have cost — the total, today, this month, and by
 * chat, day, model and key — from the cost ledger in the data folder (every call of every run, compaction summaries
 * and silent turns included). `--json` prints one object with USD amounts as numbers. Exit 0; 2 on bad usage.
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { loadConfig } from '../engine/config/load.js';
import { applySettings } from '../settings/effective.js';
import { openSettings } from '../settings/store.js';
import { SessionStore } from '../sessions/store.js';
import { readLedger } from '../usage/ledger.js';
import { ledgerFile } from '../usage/paths.js';
import { summarize, type Tally, type UsageSummary } from '../usage/summary.js';
import { usd, type BudgetConfig } from '../usage/budget.js';
import type { Io } from './agent-command.js';
import { homeFrom } from './home.js';
import { EXIT_OK, UsageError } from './usage-error.js';

export interface UsageArgs {
  json: boolean;
  home?: string;
}

export function parseUsageArgs(argv: string[]): UsageArgs {
  try {
    const { values } = parseArgs({ args: argv, strict: true, options: { json: { type: 'boolean' }, home: { type: 'string' } } });
    return { json: values.json === true, ...(values.home ? { home: values.home } : {}) };
  } catch (err) {
    throw new UsageError((err as Error).message.split('. ')[0]!.replace(/\.$/, ''));
  }
}

export interface UsageReport extends UsageSummary {
  currency: 'USD';
  byChat: Array<UsageSummary['byChat'][number] & { title: string }>;
  budget: BudgetConfig;
}

/** The report `usage` prints (also what the gateway's `usage.summary` returns). */
export function usageReport(summary: UsageSummary, titles: ReadonlyMap<string, string>, budget: BudgetConfig | undefined): UsageReport {
  return {
    currency: 'USD',
    ...summary,
    byChat: summary.byChat.map((c) => ({ ...c, title: titles.get(c.sessionId ?? '') ?? titles.get(c.sessionKey) ?? '' })),
    budget: budget ?? {},
  };
}

export async function runUsageCommand(args: UsageArgs, io: Io): Promise<number> {
  const { home: homeArg } = homeFrom(args.home, io.env);
  const home = resolve(io.cwd, homeArg);
  const fileConfig = await loadConfig(home).catch((err: Error) => {
    throw new UsageError(err.message);
  });
  let budget: BudgetConfig | undefined;
  try {
    budget = (applySettings(fileConfig, openSettings(home).get()).agent as { budget?: BudgetConfig }).budget;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const entries = await readLedger(ledgerFile(home));
  const titles = new Map<string, string>();
  for (const s of await new SessionStore(join(home, 'sessions')).list().catch(() => [])) {
    titles.set(s.sessionId, s.title);
    titles.set(s.sessionKey, s.title);
  }
  const report = usageReport(summarize(entries, Date.now()), titles, budget);
  if (args.json) {
    io.out(`${JSON.stringify(report)}\n`);
    return EXIT_OK;
  }
  io.out(renderText(report));
  return EXIT_OK;
}

const tokens = (t: Tally): string => `${t.input + t.cacheRead + t.cacheWrite} in / ${t.output} out`;
const line = (label: string, t: Tally): string =>
  `  ${label.padEnd(34)} ${usd(t.usd).padStart(10)}  ${String(t.calls).padStart(5)} calls  ${tokens(t)}${t.unpricedCalls ? `  (${t.unpricedCalls} unpriced)` : ''}\n`;

function renderText(r: UsageReport): string {
  if (r.total.calls === 0) return 'No model calls recorded yet.\n';
  let out = `Total ${usd(r.total.usd)} · this month (${r.month.month}) ${usd(r.month.usd)} · today ${usd(r.today.usd)}\n`;
  const budgets = Object.entries(r.budget).map(([k, v]) => `${k} ${usd(v as number)}`);
  if (budgets.length) out += `Budgets: ${budgets.join(', ')}\n`;
  out += '\nBy chat\n';
  for (const c of r.byChat.slice(0, 20)) out += line(c.title ? `${c.title.slice(0, 22)} (${c.sessionKey.slice(0, 10)})` : c.sessionKey.slice(0, 34), c);
  out += '\nBy day\n';
  for (const d of r.byDay.slice(0, 31)) out += line(d.day, d);
  out += '\nBy model\n';
  for (const m of r.byModel) out += line(m.model, m);
  out += '\nBy key\n';
  for (const k of r.byKey) out += line(k.profileId, k);
  if (r.total.unpricedCalls) out += `\n${r.total.unpricedCalls} call(s) used models without a price: their tokens are counted, their cost is not (set "cost" in the model's config.json entry).\n`;
  return out;
}
