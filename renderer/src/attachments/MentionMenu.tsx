import type { PathCompletion } from '../../../preload/contract.js';

/** The `@` completion list under the message box (↑/↓ to move, Enter or Tab to pick, Esc to close). */
export function MentionMenu({ items, active, onPick }: { items: PathCompletion[]; active: number; onPick: (c: PathCompletion) => void }) {
  if (items.length === 0) return null;
  return (
    <ul className="mention-menu" role="listbox" aria-label="Workspace paths" data-testid="mention-menu">
      {items.map((c, i) => (
        <li key={c.path} role="option" aria-selected={i === active} className={i === active ? 'active' : undefined}>
          <button type="button" tabIndex={-1} onMouseDown={(e) => (e.preventDefault(), onPick(c))}>
            {c.path}
          </button>
        </li>
      ))}
    </ul>
  );
}
