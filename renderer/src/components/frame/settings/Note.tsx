import type { SettingsState } from '../../../store/settings-store.js';
import { useSettings } from '../../../store/settings-store.js';

/** One line per section: the last problem, or a confirmation that goes by itself. */
export function Note({ section }: { section: keyof SettingsState['notes'] }) {
  const n = useSettings((s) => s.notes[section]);
  if (!n) return null;
  return (
    <p className={`settings-note settings-note-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid={`note-${section}`}>
      {n.text}
    </p>
  );
}
