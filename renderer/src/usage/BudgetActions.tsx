import { useState } from 'react';
import type { BudgetNameDto } from '../../../preload/contract.js';
import { showView } from '../store/sessions-store.js';
import { setBudget, useUsage } from './usage-store.js';

const LABEL: Record<BudgetNameDto, string> = { perChatUsd: 'per chat', perDayUsd: 'per day', perMonthUsd: 'per month' };

/** A run stopped by a budget: raise that budget here (then Retry), or open Settings › Usage. */
export function BudgetActions({ budget, onRaised }: { budget: BudgetNameDto; onRaised?: () => void }) {
  const current = useUsage((s) => s.report?.budget[budget]);
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('');
  const save = async () => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) return;
    if (await setBudget({ [budget]: n })) {
      setOpen(false);
      onRaised?.();
    }
  };
  return (
    <span className="budget-actions">
      {open ? (
        <span className="budget-raise">
          <label>
            Budget {LABEL[budget]} (USD){' '}
            <input type="number" min="0" step="any" autoFocus value={value} onChange={(e) => setValue(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && void save()} aria-label={`New budget ${LABEL[budget]} in USD`} />
          </label>
          <button type="button" className="btn btn-small btn-primary" onClick={() => void save()}>
            Save
          </button>
          <button type="button" className="btn btn-small" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setValue(current !== undefined ? String(Math.max(current * 2, current + 1)) : '');
            setOpen(true);
          }}
        >
          Raise budget
        </button>
      )}
      <button type="button" className="btn btn-small" onClick={() => showView('settings', 'usage')}>
        Open settings
      </button>
    </span>
  );
}
