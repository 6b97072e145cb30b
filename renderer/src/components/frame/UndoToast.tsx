import { useEffect } from 'react';
import { dismissNotice, dismissUndo, undoDelete, useSessions } from '../../store/sessions-store.js';
import { sessionTitle } from './format.js';

/** "Deleted “X”. Undo" while the gateway still keeps the session; plus one-line notices of the frame. */
export function Toasts() {
  const undo = useSessions((s) => s.undo);
  const notice = useSessions((s) => s.notice);
  useEffect(() => {
    if (!undo) return;
    const t = setTimeout(dismissUndo, Math.max(0, Math.min(undo.until - Date.now(), 15_000)));
    return () => clearTimeout(t);
  }, [undo]);
  return (
    <div className="toasts" aria-live="polite">
      {undo && (
        <div className="toast" role="status" data-testid="undo-toast">
          <span>Deleted “{sessionTitle(undo)}”.</span>
          <button type="button" className="btn" onClick={() => void undoDelete()}>Undo</button>
        </div>
      )}
      {notice && (
        <div className="toast toast-error" role="alert">
          <span>{notice}</span>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismissNotice}>×</button>
        </div>
      )}
    </div>
  );
}
