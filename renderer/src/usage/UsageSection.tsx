import { useEffect, useState } from 'react';
import type { BudgetNameDto, TallyDto } from '../../../preload/contract.js';
import { loadUsage, setBudget, useUsage, usdText } from './usage-store.js';

const BUDGETS: Array<[BudgetNameDto, string]> = [
  ['perChatUsd', 'Per chat'],
  ['perDayUsd', 'Per day'],
  ['perMonthUsd', 'Per month'],
];

const tokens = (t: TallyDto) => (t.input + t.cacheRead + t.cacheWrite + t.output).toLocaleString();

function Table({ title, rows, testId }: { title: string; rows: Array<{ label: string; t: TallyDto }>; testId: string }) {
  return (
    <div className="usage-table-wrap">
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <table className="usage-table" data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">{title.replace(/^By (\w)/, (_m, c: string) => c.toUpperCase())}</th>
              <th scope="col">Cost</th>
              <th scope="col">Calls</th>
              <th scope="col">Tokens</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.label}>
                <td title={r.label}>{r.label}</td>
                <td>
                  {usdText(r.t.usd)}
                  {r.t.unpricedCalls > 0 && <span className="muted" title="Calls of models without a price"> +{r.t.unpricedCalls} unpriced</span>}
                </td>
                <td>{r.t.calls}</td>
                <td>{tokens(r.t)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Settings › Usage (X4): this month and today, by day / model / key / chat, and the budgets that stop spending. */
export function UsageSection() {
  const report = useUsage((s) => s.report);
  const note = useUsage((s) => s.note);
  const [draft, setDraft] = useState<Record<BudgetNameDto, string>>({ perChatUsd: '', perDayUsd: '', perMonthUsd: '' });
  useEffect(() => void loadUsage(), []);
  useEffect(() => {
    if (!report) return;
    setDraft({
      perChatUsd: report.budget.perChatUsd?.toString() ?? '',
      perDayUsd: report.budget.perDayUsd?.toString() ?? '',
      perMonthUsd: report.budget.perMonthUsd?.toString() ?? '',
    });
  }, [report?.budget.perChatUsd, report?.budget.perDayUsd, report?.budget.perMonthUsd]);
  const save = () => {
    const patch: { [K in BudgetNameDto]?: number | null } = {};
    for (const [name] of BUDGETS) {
      const v = draft[name].trim();
      patch[name] = v === '' ? null : Number(v);
    }
    void setBudget(patch);
  };
  return (
    <section id="settings-usage" className="settings-section" aria-labelledby="h-usage">
      <h2 id="h-usage">Usage and budgets</h2>
      {!report ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <p className="usage-totals" data-testid="usage-totals">
            This month ({report.month.month}): <strong>{usdText(report.month.usd)}</strong> · today: <strong>{usdText(report.today.usd)}</strong> · all
            time: {usdText(report.total.usd)} in {report.total.calls} model calls (compaction summaries included).
          </p>
          <form
            className="budget-form"
            onSubmit={(e) => {
              e.preventDefault();
              save();
            }}
          >
            {BUDGETS.map(([name, label]) => (
              <label key={name}>
                {label} (USD)
                <input
                  type="number"
                  min="0"
                  step="any"
                  inputMode="decimal"
                  placeholder="no limit"
                  value={draft[name]}
                  onChange={(e) => setDraft((d) => ({ ...d, [name]: e.target.value }))}
                  data-testid={`budget-${name}`}
                />
              </label>
            ))}
            <button type="submit" className="btn">
              Save budgets
            </button>
          </form>
          <p className="muted">
            A run stops before a model call once a budget is reached (a reply already streaming finishes its call); at 80 % the chat shows a warning.
          </p>
          {note && (
            <p className={`settings-note settings-note-${note.kind}`} role={note.kind === 'error' ? 'alert' : 'status'}>
              {note.text}
            </p>
          )}
          <div className="usage-tables">
            <Table title="By chat" testId="usage-by-chat" rows={report.byChat.map((c) => ({ label: c.title || c.sessionKey, t: c }))} />
            <Table title="By day" testId="usage-by-day" rows={report.byDay.slice(0, 31).map((d) => ({ label: d.day, t: d }))} />
            <Table title="By model" testId="usage-by-model" rows={report.byModel.map((m) => ({ label: m.model, t: m }))} />
            <Table title="By key" testId="usage-by-key" rows={report.byKey.map((k) => ({ label: k.profileId, t: k }))} />
          </div>
        </>
      )}
    </section>
  );
}
