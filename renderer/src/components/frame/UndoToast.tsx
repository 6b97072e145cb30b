import { useEffect } from 'react';
import { dismissNotice, dismissUndo, undoDelete, useSessions } from '../../store/sessions-store.js';
import { sessionTitle } from './format.js';

/** "Deleted “X”. Undo" while the gateway still keeps the session, "Started over…. Undo" after /reset; plus one-line notices of the frame. */
export function Toasts() {
  const undo = useSessions((s) => s.undo);
  const notice = useSessions((s) => s.notice);
  const info = useSessions((s) => s.noticeInfo);
  useEffect(() => {
    if (!undo) return;
    const t = setTimeout(dismissUndo, Math.max(0, Math.min(undo.until - Date.now(), 15_000)));
    return () => clearTimeout(t);
  }, [undo]);
  useEffect(() => {
    if (!notice || !info) return; // a command's answer goes by itself; a problem stays until dismissed
    const t = setTimeout(dismissNotice, 10_000);
    return () => clearTimeout(t);
  }, [notice, info]);
  return (
    <div className="toasts" aria-live="polite">
      {undo && (
        <div className="toast" role="status" data-testid="undo-toast">
          <span>{undo.keptKey ? <>Started over. The earlier conversation is kept as “{undo.title}”.</> : <>Deleted “{sessionTitle(undo)}”.</>}</span>
          <button type="button" className="btn" onClick={() => void undoDelete()}>Undo</button>
        </div>
      )}
      {notice && (
        <div className={info ? 'toast' : 'toast toast-error'} role={info ? 'status' : 'alert'} data-testid="notice">
          <span>{notice}</span>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismissNotice}>×</button>
        </div>
      )}
    </div>
  );
}
