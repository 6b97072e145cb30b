/**
 * The desktop app's settings store: `<userData>/settings.json` through electron-store, with the same options
 * (schema, migrations, file mode) as conf in the CLI and `npm run web` (main/settings/store.ts).
 *
 * electron-store 11 names the file after its own `name` option (default 'config') and overwrites conf's
 * `configName` with it, so `configName` alone would make it write `<userData>/config.json` — the engine's config
 * file, which the engine then refuses ("unknown keys"), on every launch. Pass `name`.
 */
import ElectronStore from 'electron-store';
import { openSettings, type ConfLike, type SettingsStore, type SettingsStoreOptions } from '../settings/store.js';

/** electron-store's options for conf's: `name` carries the file name. */
export function electronStoreOptions(opts: SettingsStoreOptions): SettingsStoreOptions & { name: string } {
  return { ...opts, name: opts.configName };
}

export function openAppSettings(userData: string): SettingsStore {
  return openSettings(userData, (opts) => new ElectronStore(electronStoreOptions(opts) as never) as unknown as ConfLike);
}
