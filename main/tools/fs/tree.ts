/**
 * Listing a subtree for find and grep: tinyglobby for the glob, `ignore` for .gitignore rules (every .gitignore
 * from the workspace root down, deeper files overriding shallower ones as in git, negations included). `.git`
 * and `node_modules` are always skipped. Symlinks are not followed; contents are read later through the
 * confined layer, so a folder swapped during the crawl can at most show a name, never a byte from outside.
 */
import type { Ignore } from 'ignore';
import path from 'node:path';
import type { GlobOptions } from 'tinyglobby';
import { ToolError } from '../types.js';
import { readWholeText } from './confined.js';
import { hiddenInside } from './hidden.js';

export const ALWAYS_SKIPPED = ['**/.git/**', '**/node_modules/**'];
const MAX_GITIGNORE_BYTES = 1024 * 1024;

export interface TreeOptions {
  /** Workspace real path. */
  ws: string;
  /** Real path of the folder to search, relative to ws ('.' for the root). */
  baseRel: string;
  pattern: string;
  signal?: AbortSignal;
  /** Include folders too (find); grep wants files only. */
  includeDirs?: boolean;
}

type Rules = Array<{ dir: string; ig: Ignore }>;

async function loadGitignores(ws: string, baseRel: string, signal?: AbortSignal): Promise<Rules> {
  const dirs = new Set<string>(['.']);
  // Ancestors of the base (inside the workspace) and every .gitignore below it.
  const parts = baseRel === '.' ? [] : baseRel.split('/');
  for (let i = 1; i <= parts.length; i += 1) dirs.add(parts.slice(0, i).join('/'));
  const below = await globChecked('**/.gitignore', {
    cwd: path.join(ws, baseRel),
    dot: true,
    followSymbolicLinks: false,
    ignore: ALWAYS_SKIPPED,
    signal,
  });
  for (const f of below) {
    const d = path.posix.dirname(f);
    dirs.add(baseRel === '.' ? d : d === '.' ? baseRel : `${baseRel}/${d}`);
  }
  const { default: ignore } = await import('ignore'); // find/grep's libraries load at their first call, not at start-up
  const rules: Rules = [];
  for (const dir of [...dirs].sort((a, b) => depth(a) - depth(b))) {
    const file = dir === '.' ? '.gitignore' : `${dir}/.gitignore`;
    const text = await readWholeText(ws, file, 'gitignore', MAX_GITIGNORE_BYTES).then(
      (r) => r.text,
      () => null,
    );
    if (text !== null) rules.push({ dir, ig: ignore().add(text) });
  }
  return rules;
}

/** tinyglobby, with its complaints about a pattern turned into one line the model can act on. */
async function globChecked(pattern: string, options: Omit<GlobOptions, 'patterns'>): Promise<string[]> {
  const { glob } = await import('tinyglobby');
  try {
    return await glob(pattern, options);
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') throw err;
    throw new ToolError(`invalid glob pattern "${pattern}": ${(err as Error).message}`);
  }
}

const depth = (rel: string): number => (rel === '.' ? 0 : rel.split('/').length);

/** True when `rel` (from the workspace root; folders end in '/') is ignored by the loaded rules. */
function isIgnored(rules: Rules, rel: string): boolean {
  let ignored = false;
  for (const { dir, ig } of rules) {
    if (dir !== '.' && !rel.startsWith(`${dir}/`)) continue;
    const sub = dir === '.' ? rel : rel.slice(dir.length + 1);
    if (sub === '' || sub === '/') continue;
    const r = ig.test(sub);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/** Entries under the base matching `pattern`, relative to the workspace root, sorted, .gitignore honoured. */
export async function listTree(opts: TreeOptions): Promise<string[]> {
  const cwd = path.join(opts.ws, opts.baseRel);
  // X5: AgentDesk's data folder inside the workspace is never listed (hidden.ts).
  const hidden = hiddenInside(opts.ws)
    .map((rel) => (opts.baseRel === '.' ? rel : rel.startsWith(`${opts.baseRel}/`) ? rel.slice(opts.baseRel.length + 1) : null))
    .filter((rel): rel is string => rel !== null)
    .flatMap((rel) => [rel, `${rel}/**`]);
  const found = await globChecked(opts.pattern, {
    cwd,
    dot: true,
    onlyFiles: !opts.includeDirs,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: [...ALWAYS_SKIPPED, ...hidden],
    signal: opts.signal,
  });
  const rules = await loadGitignores(opts.ws, opts.baseRel, opts.signal);
  const out: string[] = [];
  for (const f of found) {
    const rel = opts.baseRel === '.' ? f : `${opts.baseRel}/${f}`;
    if (!isIgnored(rules, rel)) out.push(rel);
  }
  return out.sort();
}
