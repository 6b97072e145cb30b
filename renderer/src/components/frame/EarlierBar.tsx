import { showEarlier, useSessions } from '../../store/sessions-store.js';

/** Shown above a long conversation while its earlier part loads (or if loading it failed: the button tries again). */
export function EarlierBar() {
  const omitted = useSessions((s) => s.omitted);
  if (omitted === 0) return null;
  return (
    <div className="earlier-bar" data-testid="earlier-bar">
      <span className="muted">{omitted} earlier messages…</span>
      <button type="button" className="btn" onClick={() => void showEarlier()}>
        Load them
      </button>
    </div>
  );
}
