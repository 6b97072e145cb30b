import { showEarlier, useSessions } from '../../store/sessions-store.js';

/** Shown above a long conversation that opened with only its latest messages. */
export function EarlierBar() {
  const omitted = useSessions((s) => s.omitted);
  if (omitted === 0) return null;
  return (
    <div className="earlier-bar" data-testid="earlier-bar">
      <span className="muted">{omitted} earlier messages not shown.</span>
      <button type="button" className="btn" onClick={() => void showEarlier()}>
        Show earlier messages
      </button>
    </div>
  );
}
