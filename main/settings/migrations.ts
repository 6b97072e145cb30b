/**
 * Settings migrations (conf runs every migration newer than the version recorded in the file, in order).
 *
 * 1.0.0 — the first settings file: flat `defaultModel`, `defaultThinking`, `lastWorkspace`; and the shell's
 *          `window-state.json` ({"workspace"}) from before settings existed.
 * 2.0.0 — today's shape: `defaults.{model,thinking,…}`, `workspace` + `recentWorkspaces`, `profiles`, `providers`.
 * Migrations must be idempotent: a brand-new file runs them all.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfLike } from './store.js';

export const SETTINGS_VERSION = '2.0.0';
export const LEGACY_WINDOW_STATE = 'window-state.json';

function legacyWorkspace(home: string): string | undefined {
  const file = join(home, LEGACY_WINDOW_STATE);
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { workspace?: unknown };
    return typeof value.workspace === 'string' && value.workspace !== '' ? value.workspace : undefined;
  } catch {
    return undefined;
  }
}

export function migrations(home: string): Record<string, (store: ConfLike) => void> {
  return {
    '2.0.0': (store) => {
      const defaults = { ...((store.get('defaults') as Record<string, unknown> | undefined) ?? {}) };
      if (typeof store.get('defaultModel') === 'string' && defaults.model === undefined) defaults.model = store.get('defaultModel');
      if (typeof store.get('defaultThinking') === 'string' && defaults.thinking === undefined) defaults.thinking = store.get('defaultThinking');
      store.set('defaults', defaults);
      for (const old of ['defaultModel', 'defaultThinking']) if (store.has(old)) store.delete(old);

      const last = store.get('lastWorkspace');
      if (store.has('lastWorkspace')) store.delete('lastWorkspace');
      const workspace = (store.get('workspace') as string | undefined) ?? (typeof last === 'string' ? last : undefined) ?? legacyWorkspace(home);
      if (workspace) {
        store.set('workspace', workspace);
        const recent = (store.get('recentWorkspaces') as string[] | undefined) ?? [];
        if (!recent.includes(workspace)) store.set('recentWorkspaces', [workspace, ...recent].slice(0, 8));
      }
    },
  };
}
