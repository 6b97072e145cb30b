/**
 * Opens `<home>/settings.json` through conf (plain Node: CLI, `npm run web`) or electron-store (the app passes its
 * own factory from main/shell) with the SAME options: file name, JSON schema, migrations. conf keeps its migration
 * state in the file (`__internal__.migrations.version`).
 *
 * Problems become one-line SettingsErrors naming the file ("settings.json is not valid JSON: …"); the CLI exits 2.
 *
 * Start-up: conf (with ajv and its schema compilation) costs a CLI turn ~50 ms and ~18 MB before the first byte is
 * sent, only to READ a file that is usually current. So a plain-Node store reads a current file (valid JSON, this
 * version, passing the zod schema, which is the source of conf's JSON schema) directly, and opens conf only when it
 * has to: the first write, a missing file (conf creates it), a file of another version (conf migrates it), or any
 * problem (conf names it). The app's electron-store is opened at once, as before.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** conf, loaded when first needed (a synchronous require of the ES module: Node ≥ 20.19). */
const confFactory: ConfFactory = (opts) => {
  const Conf = (createRequire(import.meta.url)('conf') as typeof import('conf')).default;
  return new Conf(opts as unknown as ConstructorParameters<typeof Conf>[0]) as unknown as ConfLike;
};

/**
 * The settings in `file` when it can be used as it is — valid JSON recorded at this version and valid for the
 * schema — else undefined (conf then creates, migrates or names the problem).
 */
export function readCurrentSettings(file: string): Settings | undefined {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const internal = raw.__internal__ as { migrations?: { version?: unknown } } | undefined;
  if (internal?.migrations?.version !== SETTINGS_VERSION) return undefined;
  const { __internal__: _, ...rest } = raw;
  const parsed = settingsSchema.safeParse(rest);
  return parsed.success ? parsed.data : undefined;
}

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

/** What identifies one version of the file without reading it (a write renames a new file in, or changes these). */
function fileStamp(file: string): string | undefined {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

export class SettingsStore {
  private opened: ConfLike | undefined;
  /** The last current file read directly, by its stamp: read and checked once until the file changes. */
  private cached: { stamp: string; settings: Settings } | undefined;

  /** `conf`: the open store, or how to open it when first needed (then current files are read directly). */
  constructor(
    private readonly conf: ConfLike | (() => ConfLike),
    readonly file: string,
    cached?: { stamp: string; settings: Settings },
  ) {
    if (typeof conf !== 'function') this.opened = conf;
    this.cached = cached;
  }

  private store(): ConfLike {
    if (this.opened) return this.opened;
    try {
      this.opened = (this.conf as () => ConfLike)();
    } catch (err) {
      throw new SettingsError(describeSettingsFailure(err), this.file);
    }
    return this.opened;
  }

  /** The current settings (re-read when the file changed: another process may have written it). */
  get(): Settings {
    if (!this.opened) {
      const stamp = fileStamp(this.file);
      if (stamp !== undefined && this.cached?.stamp === stamp) return structuredClone(this.cached.settings);
      const current = readCurrentSettings(this.file);
      if (current) {
        if (stamp !== undefined) this.cached = { stamp, settings: current };
        return structuredClone(current);
      }
    }
    let raw: Record<string, unknown>;
    try {
      raw = { ...this.store().store };
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
        if (next[key] === undefined) this.store().delete(key);
        else this.store().set(key, next[key]);
      }
      for (const key of Object.keys(before) as (keyof Settings)[]) if (!(key in next) && before[key] !== undefined) this.store().delete(key);
    } catch (err) {
      throw new SettingsError(describeSettingsFailure(err), this.file);
    }
    return next;
  }
}

/**
 * Opens (creating and migrating as needed) the settings of `home`. With the default (conf) factory a current file
 * is only read, and conf is opened at the first write; a given factory (the app's electron-store) opens at once.
 */
export function openSettings(home: string, factory?: ConfFactory): SettingsStore {
  const file = join(home, SETTINGS_FILE);
  const open = () => (factory ?? confFactory)(settingsStoreOptions(home));
  if (factory) return new SettingsStore(wrapOpen(open, file), file);
  const stamp = fileStamp(file);
  const current = readCurrentSettings(file);
  if (!current) return new SettingsStore(wrapOpen(open, file), file);
  return new SettingsStore(open, file, stamp !== undefined ? { stamp, settings: current } : undefined);
}

function wrapOpen(open: () => ConfLike, file: string): ConfLike {
  try {
    return open();
  } catch (err) {
    throw new SettingsError(describeSettingsFailure(err), file);
  }
}
