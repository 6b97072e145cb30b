/**
 * Opens `<home>/settings.json` through conf (plain Node: CLI, `npm run web`) or electron-store (the app passes its
 * own factory from main/shell) with the SAME options: file name, JSON schema, migrations. conf keeps its migration
 * state in the file (`__internal__.migrations.version`).
 *
 * Problems become one-line SettingsErrors naming the file ("settings.json is not valid JSON: …"); the CLI exits 2.
 */
import Conf from 'conf';
import { join } from 'node:path';
import { migrations, SETTINGS_VERSION } from './migrations.js';
import { settingsJsonSchema, settingsSchema, type Settings } from './schema.js';

export const SETTINGS_FILE = 'settings.json';

export class SettingsError extends Error {
  override name = 'SettingsError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

/** The part of conf / electron-store this module uses. */
export interface ConfLike {
  readonly store: Record<string, unknown>;
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  has(key: string): boolean;
  delete(key: string): void;
  readonly path: string;
}

export interface SettingsStoreOptions {
  cwd: string;
  configName: string;
  projectName: string;
  projectVersion: string;
  schema: Record<string, object>;
  migrations: Record<string, (store: ConfLike) => void>;
  clearInvalidConfig: false;
  accessPropertiesByDotNotation: false;
  configFileMode: number;
}

export type ConfFactory = (opts: SettingsStoreOptions) => ConfLike;

/** What conf and electron-store are both constructed with. */
export function settingsStoreOptions(home: string): SettingsStoreOptions {
  return {
    cwd: home,
    configName: 'settings',
    projectName: 'agentdesk',
    projectVersion: SETTINGS_VERSION,
    schema: settingsJsonSchema(),
    migrations: migrations(home),
    clearInvalidConfig: false, // a person may edit the file: say what is wrong instead of wiping it
    accessPropertiesByDotNotation: false,
    configFileMode: 0o600,
  };
}

const confFactory: ConfFactory = (opts) => new Conf(opts as unknown as ConstructorParameters<typeof Conf>[0]) as unknown as ConfLike;

/** One line for a conf failure: bad JSON, a schema violation, an unreadable file. */
export function describeSettingsFailure(err: unknown): string {
  const e = err as Error & { code?: string };
  const msg = String(e?.message ?? err).split('\n')[0]!;
  if (e?.name === 'SyntaxError') return `${SETTINGS_FILE} is not valid JSON (${msg}); fix it or delete it to start over`;
  const violation = /^Config schema violation: (.*)$/.exec(msg);
  if (violation) {
    const first = violation[1]!.split('; ')[0]!.replace(/`([^`]*)`/, (_m, p: string) => (p ? p.replace(/\//g, '.') : 'the file'));
    return `${SETTINGS_FILE}: ${first}`;
  }
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return `${SETTINGS_FILE} cannot be read or written: permission denied`;
  return `${SETTINGS_FILE} could not be opened: ${msg.replace(/^[A-Z]+: /, '')}`;
}

export class SettingsStore {
  constructor(
    private readonly conf: ConfLike,
    readonly file: string,
  ) {}

  /** The current settings (re-read from the file: another process may have changed it). */
  get(): Settings {
    let raw: Record<string, unknown>;
    try {
      raw = { ...this.conf.store };
    } catch (err) {
      throw new SettingsError(describeSettingsFailure(err), this.file);
    }
    delete raw.__internal__;
    const parsed = settingsSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SettingsError(`${SETTINGS_FILE}: ${issue?.path.join('.') || 'the file'}: ${issue?.message ?? 'invalid'}`, this.file);
    }
    return parsed.data;
  }

  /** Applies `change` to a copy and writes the keys that changed. */
  update(change: (current: Settings) => Settings): Settings {
    const next = settingsSchema.parse(change(structuredClone(this.get())));
    const before = this.get();
    try {
      for (const key of Object.keys(next) as (keyof Settings)[]) {
        if (JSON.stringify(next[key]) === JSON.stringify(before[key])) continue;
        if (next[key] === undefined) this.conf.delete(key);
        else this.conf.set(key, next[key]);
      }
      for (const key of Object.keys(before) as (keyof Settings)[]) if (!(key in next) && before[key] !== undefined) this.conf.delete(key);
    } catch (err) {
      throw new SettingsError(describeSettingsFailure(err), this.file);
    }
    return next;
  }
}

/** Opens (creating and migrating as needed) the settings of `home`. */
export function openSettings(home: string, factory: ConfFactory = confFactory): SettingsStore {
  const file = join(home, SETTINGS_FILE);
  try {
    return new SettingsStore(factory(settingsStoreOptions(home)), file);
  } catch (err) {
    throw new SettingsError(describeSettingsFailure(err), file);
  }
}
