import { setTheme, THEME_CHOICES, useTheme, type ThemeChoice } from '../../../lib/theme.js';

const THEME_LABEL: Record<ThemeChoice, string> = { system: 'Same as the system', light: 'Light', dark: 'Dark' };

/** Issue 18 item 17: the theme of this window (system / light / dark), also in the command palette. */
export function AppearanceSection() {
  const choice = useTheme((s) => s.choice);
  return (
    <section id="settings-appearance" className="settings-section" aria-labelledby="h-appearance">
      <h2 id="h-appearance">Appearance</h2>
      <div className="theme-choices" role="radiogroup" aria-label="Theme">
        {THEME_CHOICES.map((t) => (
          <label key={t} className="check">
            <input type="radio" name="theme" value={t} checked={choice === t} onChange={() => setTheme(t)} />
            {THEME_LABEL[t]}
          </label>
        ))}
      </div>
    </section>
  );
}
