import { dismissRestoreNotice, undoRestore, useCheckpoints } from './checkpoint-store.js';
import './checkpoints.css';

/** After a restore: what it did, and "Undo restore" (which can itself be undone: it is a restore too). */
export function RestoreNotice() {
  const notice = useCheckpoints((s) => s.notice);
  const canUndo = useCheckpoints((s) => s.lastRestore !== null);
  if (!notice) return null;
  return (
    <div className={`restore-notice${notice.error ? ' restore-notice-error' : ''}`} role={notice.error ? 'alert' : 'status'} data-testid="restore-notice">
      <span>{notice.message}</span>
      {!notice.error && canUndo && (
        <button type="button" className="btn btn-small" onClick={() => void undoRestore()} data-testid="restore-undo">
          Undo restore
        </button>
      )}
      <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismissRestoreNotice}>
        ×
      </button>
    </div>
  );
}
