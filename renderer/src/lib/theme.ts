/**
 * The window's theme (issue 18 item 17): follow the system, or light, or dark. Kept in this window's storage (it is
 * a preference of the screen, not of the agent) and applied as `data-theme` on <html>, where the stylesheet's
 * `color-scheme` makes every `light-dark()` colour follow it. Applied before the first render: no flash.
 */
import { create } from 'zustand';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
const KEY = 'agentdesk.theme';

function read(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

function apply(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

export const useTheme = create<{ choice: ThemeChoice }>(() => ({ choice: read() }));

/** Call once before rendering. */
export function initTheme(): void {
  apply(useTheme.getState().choice);
}

export function setTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // storage unavailable: the choice lasts until the window closes
  }
  apply(choice);
  useTheme.setState({ choice });
}

/** The theme actually shown now (the system's when following it). */
export function effectiveTheme(choice: ThemeChoice = useTheme.getState().choice): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The palette's "Switch theme": light ↔ dark from what is shown now. */
export const toggleTheme = (): void => setTheme(effectiveTheme() === 'dark' ? 'light' : 'dark');
