import { showView } from '../store/sessions-store.js';
import { dismissBudgetWarning, useUsage } from './usage-store.js';

/**
 * X4: the 80 % warning of a budget, above the message box of the chat whose run reached it (a day's or month's
 * budget warns in whichever chat spends next). The run went on; this says how much is left and where to change it.
 */
export function BudgetWarning({ sessionKey }: { sessionKey: string }) {
  const warning = useUsage((s) => s.warning);
  if (!warning || warning.sessionKey !== sessionKey) return null;
  return (
    <div className="budget-warning" role="status" data-testid="budget-warning">
      <span>Budget warning: {warning.message}</span>
      <button type="button" className="btn btn-small" onClick={() => showView('settings', 'usage')}>
        Open settings
      </button>
      <button type="button" className="btn btn-small" aria-label="Dismiss the budget warning" onClick={dismissBudgetWarning}>
        ×
      </button>
    </div>
  );
}
