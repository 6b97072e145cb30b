/**
 * Plugins (E19): ES modules in the user's plugins folder, `<home>/plugins/<name>/`, loaded only when enabled
 * (`plugins.enabled` in config.json) — a plugin's code never runs before the person turned it on. The entry is
 * `package.json` "main", else `index.mjs`, else `index.js`, and must stay inside the plugin's folder (symlinks
 * resolved). The module's default export is either an object `{ hooks: { name: handler, … }, priority? }` or a
 * function `register(api)` that calls `api.on(name, handler)`. Every handler goes through the HookRunner, so a
 * broken plugin can fail or hang only its own hooks. A plugin that cannot be loaded is reported (one line) and
 * skipped; the app runs on.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isInside } from '../tools/paths.js';
import { HOOK_NAMES, type EngineHooks, type HookHandlers, type HookName } from './attempt/hooks.js';
import type { HookRunner, HookTimers } from './attempt/hook-runner.js';

export const PLUGINS_DIR = 'plugins';
/** A module whose top level does not settle in this time is reported as failed (its import keeps running). */
export const PLUGIN_LOAD_TIMEOUT_MS = 5_000;

export interface PluginInfo {
  name: string;
  dir: string;
  enabled: boolean;
  /** Hooks it registered (only for a loaded plugin). */
  hooks: HookName[];
  /** One line: why it was not loaded (or which of its hooks were rejected). */
  error?: string;
}

export interface PluginApi {
  readonly name: string;
  on<K extends HookName>(hook: K, handler: HookHandlers[K], opts?: { priority?: number }): void;
  log(message: string): void;
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 300);

/** Folders in `<home>/plugins` (sorted), whether enabled or not. */
export async function discoverPlugins(home: string): Promise<{ name: string; dir: string }[]> {
  const root = join(home, PLUGINS_DIR);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() || e.isSymbolicLink())
    .map((e) => ({ name: e.name, dir: join(root, e.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The plugin's entry module, checked to be inside its folder. */
export async function pluginEntry(dir: string): Promise<string> {
  const realDir = await realpath(dir);
  const candidates: string[] = [];
  try {
    const pkg = JSON.parse(await readFile(join(realDir, 'package.json'), 'utf8')) as { main?: unknown };
    if (typeof pkg.main === 'string') candidates.push(pkg.main);
  } catch {
    // no package.json (or not JSON): fall back to index files
  }
  candidates.push('index.mjs', 'index.js');
  for (const rel of candidates) {
    const file = join(realDir, rel);
    const real = await realpath(file).catch(() => undefined);
    if (!real) continue;
    if (!isInside(realDir, real)) throw new Error(`its entry ${rel} points outside the plugin folder`);
    if ((await stat(real)).isFile()) return real;
  }
  throw new Error('no entry module (package.json "main", index.mjs or index.js)');
}

function withTimeout<T>(p: Promise<T>, ms: number, timers: HookTimers, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = timers.setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    p.then(
      (v) => {
        timers.clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        timers.clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** Loads one plugin module and collects the hooks it registers (nothing is registered on failure). */
async function loadOne(name: string, dir: string, timers: HookTimers, log: (line: string) => void): Promise<{ hooks: EngineHooks; priority: number; rejected: string[] }> {
  const entry = await pluginEntry(dir);
  const mod = (await withTimeout(import(pathToFileURL(entry).href) as Promise<{ default?: unknown }>, PLUGIN_LOAD_TIMEOUT_MS, timers, 'loading')) ?? {};
  const exported = mod.default;
  const hooks: Record<string, unknown> = {};
  const rejected: string[] = [];
  let priority = 0;
  const add = (hook: string, handler: unknown) => {
    if (!(HOOK_NAMES as readonly string[]).includes(hook)) rejected.push(`unknown hook "${hook}"`);
    else if (typeof handler !== 'function') rejected.push(`hook "${hook}" is not a function`);
    else hooks[hook] = handler;
  };
  if (typeof exported === 'function') {
    const api: PluginApi = {
      name,
      on: (hook, handler, opts) => {
        add(hook, handler);
        if (opts?.priority !== undefined) priority = opts.priority;
      },
      log: (message) => log(`[plugin ${name}] ${message}`),
    };
    await withTimeout(Promise.resolve((exported as (api: PluginApi) => unknown)(api)), PLUGIN_LOAD_TIMEOUT_MS, timers, 'register()');
  } else if (typeof exported === 'object' && exported !== null && typeof (exported as { hooks?: unknown }).hooks === 'object') {
    const obj = exported as { hooks: Record<string, unknown>; priority?: unknown };
    for (const [hook, handler] of Object.entries(obj.hooks ?? {})) add(hook, handler);
    if (typeof obj.priority === 'number') priority = obj.priority;
  } else {
    throw new Error('the module has no default export with hooks (an object { hooks } or a register(api) function)');
  }
  return { hooks: hooks as EngineHooks, priority, rejected };
}

/**
 * Loads every enabled plugin into `runner` and reports all of them (disabled ones are listed, never loaded).
 * An enabled name with no folder is reported too.
 */
export async function loadPlugins(opts: {
  home: string;
  enabled: readonly string[];
  runner: HookRunner;
  timers?: HookTimers;
  log?: (line: string) => void;
}): Promise<PluginInfo[]> {
  const timers = opts.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
  const log = opts.log ?? ((line: string) => console.error(`[agentdesk] ${line}`));
  const found = await discoverPlugins(opts.home);
  const enabled = new Set(opts.enabled);
  const infos: PluginInfo[] = [];
  for (const { name, dir } of found) {
    if (!enabled.has(name)) {
      infos.push({ name, dir, enabled: false, hooks: [] });
      continue;
    }
    try {
      const { hooks, priority, rejected } = await loadOne(name, dir, timers, log);
      opts.runner.register(`plugin ${name}`, hooks, priority);
      const info: PluginInfo = { name, dir, enabled: true, hooks: Object.keys(hooks) as HookName[] };
      if (rejected.length > 0) info.error = oneLine(rejected.join('; '));
      infos.push(info);
    } catch (err) {
      const error = oneLine((err as Error)?.message ?? String(err));
      log(`plugin ${name} was not loaded: ${error}`);
      infos.push({ name, dir, enabled: true, hooks: [], error });
    }
  }
  for (const name of enabled) {
    if (!found.some((f) => f.name === name)) {
      infos.push({ name, dir: join(opts.home, PLUGINS_DIR, name), enabled: true, hooks: [], error: `no folder ${name} in ${join(opts.home, PLUGINS_DIR)}` });
    }
  }
  return infos;
}
