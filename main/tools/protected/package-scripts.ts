/**
 * package.json is a file agents edit all the time (dependencies, scripts to run tests), so it is protected by
 * content (X5): only its lifecycle scripts — the ones npm, yarn and pnpm run by themselves at install, pack or
 * publish time, without the person naming them — count. A change to `scripts.test` is the person's to run; a new
 * `scripts.postinstall` runs at the next `npm install`, outside the sandbox.
 */

export const LIFECYCLE_SCRIPTS = [
  'preinstall', 'install', 'postinstall', 'preuninstall', 'uninstall', 'postuninstall',
  'prepare', 'preprepare', 'postprepare', 'prepublish', 'prepublishOnly', 'prepack', 'postpack',
  'dependencies', 'prerestart', 'restart', 'postrestart',
] as const;

type Scripts = Record<string, string>;

/** The lifecycle scripts of a package.json text; null when it is not a JSON object (nothing to compare). */
export function lifecycleScripts(text: string | undefined): Scripts | null {
  if (text === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const scripts = (json as { scripts?: unknown }).scripts;
  const out: Scripts = {};
  if (typeof scripts !== 'object' || scripts === null) return out;
  for (const name of LIFECYCLE_SCRIPTS) {
    const v = (scripts as Record<string, unknown>)[name];
    if (v !== undefined) out[name] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/**
 * The lifecycle scripts that `after` adds, changes or removes compared with `before` (undefined: the file is new).
 * A text that is not valid JSON counts as changing all of them (npm would refuse it, but a later fix-up could
 * keep what it hides), unless both sides are the same text.
 */
export function changedLifecycleScripts(before: string | undefined, after: string): string[] {
  if (before === after) return [];
  const a = lifecycleScripts(before);
  const b = lifecycleScripts(after);
  if (a === null || b === null) return b === null ? ['(package.json is not valid JSON)'] : Object.keys(b);
  return LIFECYCLE_SCRIPTS.filter((n) => a[n] !== b[n]);
}

/**
 * `after` with its lifecycle scripts put back as they were in `before` (used after a sandboxed command changed
 * them): the rest of the command's changes stay. Keeps the file's indentation. Null when `after` is not a JSON
 * object (the caller restores the whole file instead).
 */
export function restoreLifecycleScripts(before: string | undefined, after: string): string | null {
  const old = lifecycleScripts(before) ?? {};
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(after);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    json = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const scripts: Record<string, unknown> =
    typeof json.scripts === 'object' && json.scripts !== null && !Array.isArray(json.scripts) ? { ...(json.scripts as Record<string, unknown>) } : {};
  for (const name of LIFECYCLE_SCRIPTS) {
    if (old[name] !== undefined) scripts[name] = old[name];
    else delete scripts[name];
  }
  const next = { ...json, ...(Object.keys(scripts).length > 0 || json.scripts !== undefined ? { scripts } : {}) };
  const indent = /^[ \t]+/m.exec(after)?.[0] ?? '  ';
  return `${JSON.stringify(next, null, indent)}${after.endsWith('\n') ? '\n' : ''}`;
}
