import { dismissRestoreNotice, undoRestore, useCheckpoints } from './checkpoint-store.js';
import './checkpoints.css';

/**
 * After a restore: what it did, and "Undo restore" (which can itself be undone: it is a restore too). An undo that
 * failed changed nothing: its notice offers "Try again" (the cause — a read-only folder, say — may be fixed by then).
 */
export function RestoreNotice() {
  const notice = useCheckpoints((s) => s.notice);
  const canUndo = useCheckpoints((s) => s.lastRestore !== null);
  if (!notice) return null;
  // the notice of a restore offers to undo it; that of a failed undo, to try again (a start-up line is maybe another chat's)
  const undo = !canUndo
    ? null
    : !notice.error && !notice.startup
      ? { label: 'Undo restore', testId: 'restore-undo' }
      : notice.error && notice.undo === 'failed'
        ? { label: 'Try again', testId: 'restore-undo-retry' }
        : null;
  return (
    <div className={`restore-notice${notice.error ? ' restore-notice-error' : ''}`} role={notice.error ? 'alert' : 'status'} data-testid="restore-notice">
      <span>{notice.message}</span>
      {undo && (
        <button type="button" className="btn btn-small" onClick={() => void undoRestore()} data-testid={undo.testId}>
          {undo.label}
        </button>
      )}
      <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismissRestoreNotice}>
        ×
      </button>
    </div>
  );
}
