/**
 * X2: one pass over the workspace — what a checkpoint captures. Follows every .gitignore from the root down (deeper
 * files override shallower ones, negations included, as in git; an ignored folder is not entered), always skips
 * `.git` (and the names a case-insensitive or Unicode-folding file system takes for it) and `node_modules`, never
 * follows a symlink — not even one swapped in for a folder while it runs (workspace-fs.ts) — and lists what it does not capture (over the per-file cap,
 * over the total cap, sockets/devices/FIFOs, unreadable) instead of losing it silently. Past the entry cap it stops
 * and lists the folders it did not finish.
 *
 * Synchronous fs calls in a loop that yields to the event loop every few milliseconds: ~3× faster than the
 * promise API for 10 000 small files (no thread-pool hop per call), without stalling the gateway that runs it.
 */
import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ignore } from 'ignore';
import path from 'node:path';
import { isDir, isFile, isLink, lstatFields, lstatFieldsInto, type LstatFields } from './lstat-fields.js';
import { isDotGit, type SkippedEntry, type TreeEntry } from './tree.js';
import { WorkspaceFs } from './workspace-fs.js';

export const ALWAYS_SKIPPED_NAMES = new Set(['.git', 'node_modules']);

export const isAlwaysSkipped = (name: string): boolean => ALWAYS_SKIPPED_NAMES.has(name) || isDotGit(name);
const MAX_GITIGNORE_BYTES = 1024 * 1024;

export interface ScanLimits {
  /** Files larger than this are not captured (listed as skipped). */
  maxFileBytes: number;
  /** Once the captured files add up to this, the rest are listed as skipped. */
  maxTotalBytes: number;
  /**
   * Once this many files, folders and links are recorded (or MAX_SKIPPED_LISTED skipped), the walk stops: each
   * folder it did not finish is listed as skipped (`entry-cap`; `.` for the workspace itself), at most one per level
   * of depth, and a restore deletes nothing in them that the checkpoint does not hold (apply.ts).
   */
  maxEntries?: number;
}

/** The entry cap when none is given (config.json `checkpoints.maxEntries` sets it). */
export const DEFAULT_MAX_ENTRIES = 200_000;

/** Skipped paths listed one by one, at most: past it the walk stops as at the entry cap (the list stays small). */
export const MAX_SKIPPED_LISTED = 1000;

/**
 * What the previous tree of this workspace says, so .gitignore rules are not matched again for paths it already
 * holds: a path in it was not ignored then, and is not now while every .gitignore on its way is unchanged (same
 * size, mtime, ctime, inode, and not written in the last moments before that tree was taken).
 */
export interface KnownPaths {
  /**
   * The previous tree's entries, sorted by path (as every tree is). The walk lists each folder's names in sorted
   * order and finds each name's previous entry with a cursor into this list (`seekPath`): a compare or two per
   * name, where a Map by path cost building 10 000 keys and hashing every path again (≈ a fifth of a later
   * snapshot's CPU beyond its lstat calls).
   */
  entries: readonly TreeEntry[];
  /**
   * The stat cache (capture.ts): a file whose previous entry has a content hash, was not written after this time and
   * matches the file's mode, size, mtime, ctime and inode is listed as that same entry object, hash included — no
   * new object for each of 10 000 unchanged files, and trees compare such entries by identity. A previous
   * `.gitignore` is trusted by its stat on the same terms. Unset: every entry is new and has no hash, and no
   * .gitignore is trusted.
   */
  cacheBefore?: number;
}

/**
 * The first index `i >= from` with `entries[i].p >= p` (`entries` sorted by path; `entries.length` when there is
 * none). Gallops from `from`, so the next name of a folder walked in order costs a compare or two, and the jump
 * over a subfolder's entries a few more.
 */
export function seekPath(entries: readonly TreeEntry[], from: number, p: string): number {
  const n = entries.length;
  if (from >= n || !(entries[from]!.p < p)) return from;
  let lo = from; // entries[lo].p < p
  let step = 1;
  let hi = from + 1;
  while (hi < n && entries[hi]!.p < p) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > n) hi = n; // now entries[hi].p >= p, or hi === n
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.p < p) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The entry at path `p` of sorted `entries`, looked for from index `from` on (undefined: none). */
export function entryAt(entries: readonly TreeEntry[], from: number, p: string): TreeEntry | undefined {
  const e = entries[seekPath(entries, from, p)];
  return e !== undefined && e.p === p ? e : undefined;
}

export interface ScanResult {
  entries: TreeEntry[];
  skipped: SkippedEntry[];
}

/**
 * A folder's .gitignore: its text is read when the walk reaches the folder, and parsed (and the `ignore` package
 * loaded) only when a path the previous tree does not vouch for has to be tested. A later snapshot of a folder
 * whose paths are all known and whose .gitignore files are unchanged never parses one: in a fresh checkpoint
 * worker that spares loading the package through Node's CommonJS loader and compiling it.
 */
interface Rule {
  dir: string;
  text: string;
  ig?: Ignore;
}
type Rules = Rule[];

function ignoredBy(rules: Rules, rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    const { dir } = rule;
    if (dir !== '' && !rel.startsWith(`${dir}/`)) continue;
    const sub = dir === '' ? rel : rel.slice(dir.length + 1);
    const ig = (rule.ig ??= parseRules(rule.text));
    const r = ig.test(isDir ? `${sub}/` : sub);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

type IgnoreFactory = typeof import('ignore');
let ignoreFactory: IgnoreFactory | undefined;

/**
 * The `ignore` package, loaded at the first snapshot (not at start-up, like find/grep's libraries) and by `require`:
 * it is CommonJS, and importing it from an ES module (the checkpoint worker) first has Node parse its whole source
 * for named exports — ≈ 15 ms of a fresh thread's capture, against ≈ 3 ms.
 */
function loadIgnore(): IgnoreFactory {
  if (!ignoreFactory) {
    const mod = createRequire(import.meta.url)('ignore') as IgnoreFactory & { default?: IgnoreFactory };
    ignoreFactory = mod.default ?? mod;
  }
  return ignoreFactory;
}

/** A .gitignore's rules; one the package cannot take ignores nothing (as an unreadable one). */
function parseRules(text: string): Ignore {
  const ignore = loadIgnore();
  try {
    return ignore().add(text);
  } catch {
    return ignore();
  }
}

/** `p`'s real path (symlinks resolved), or `p` resolved when it cannot be (missing). */
function realPathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Yields to the event loop when more than `sliceMs` of synchronous work has passed (lock refresh, other requests).
 * The clock is read at every `every`-th call only: a walk calls this once per name, a few µs of work each, and a
 * clock read per name was ≈ 5 % of a capture of 10 000 unchanged files.
 */
export function yielder(sliceMs = 15, every = 1): () => Promise<void> | undefined {
  let last = performance.now();
  let calls = 0;
  return () => {
    if (++calls < every) return undefined;
    calls = 0;
    const now = performance.now();
    if (now - last < sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        last = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * Lists the workspace `root` (a real path). `exclude` holds absolute paths never entered (the app's data folder when
 * it lies inside the workspace). File entries carry stat fields but no hash: the capture step fills it in.
 */
export async function scanWorkspace(root: string, limits: ScanLimits, exclude: readonly string[] = [], known?: KnownPaths): Promise<ScanResult> {
  const entries: TreeEntry[] = [];
  const skipped: SkippedEntry[] = [];
  // Excluded names by the folder they are in: one look per folder, not a path built for every entry.
  const excluded = new Map<string, Set<string>>();
  const addExcluded = (abs: string) => {
    const parent = path.dirname(abs);
    if (!excluded.has(parent)) excluded.set(parent, new Set());
    excluded.get(parent)!.add(path.basename(abs));
  };
  // By the path as given and by its real path: a data folder given through a symlink into the workspace
  // (`--home /tmp/w/.agentdesk` where /tmp links to /private/tmp) is the store itself — captured, a restore would
  // delete its newer packs and logs. The walk compares paths under `root`, so a real path under root's real path
  // is also taken back under `root`.
  const rootReal = realPathOr(root);
  for (const p of exclude) {
    const abs = path.resolve(p);
    const real = realPathOr(abs);
    addExcluded(abs);
    addExcluded(real);
    if (real.startsWith(`${rootReal}${path.sep}`)) addExcluded(path.join(root, path.relative(rootReal, real)));
  }
  const known0 = known;
  const cacheBefore = known?.cacheBefore;
  const prevEntries: readonly TreeEntry[] = known?.entries ?? [];
  const pause = yielder(15, 32); // per name: an lstat each (a few µs)
  let total = 0;
  const maxEntries = limits.maxEntries ?? DEFAULT_MAX_ENTRIES;

  const fs = new WorkspaceFs(root);
  /** The walk's lstat fields, overwritten for each name (read before the next one; kept in no entry). */
  const stat: LstatFields = { mode: 0, size: 0, ino: 0, mtimeMs: 0, ctimeMs: 0 };
  /**
   * `from`: an index of `prevEntries` at or before this folder's first entry there. Names are walked in sorted order
   * so that their previous entries come in order too (a folder's own children sort in the order of their names;
   * what sorts between them — a subfolder's entries, `a-b` between `a` and `a/x` — is galloped over).
   */
  const walk = async (dirRel: string, inherited: Rules, rulesKnown: boolean, from: number): Promise<void> => {
    // The folder as reached without following links (it may have been replaced since its parent was listed).
    const abs = fs.dirPath(dirRel);
    const real = dirRel === '' ? root : path.join(root, dirRel);
    // Names only: every name is lstat-ed below anyway, and a fresh thread's first 10 000 Dirent objects cost
    // ≈ 20 ms of a later snapshot's CPU.
    let names: string[];
    try {
      if (abs === undefined) throw new Error('not a folder');
      names = readdirSync(abs).sort();
    } catch {
      if (dirRel !== '') skipped.push({ p: dirRel, reason: 'unreadable' });
      return;
    }
    const excludedHere = excluded.get(real);
    let rules = inherited;
    const giRel = dirRel === '' ? '.gitignore' : `${dirRel}/.gitignore`;
    let gitignoreStat: LstatFields | undefined;
    if (names.includes('.gitignore')) {
      try {
        const st = lstatFields(`${abs}/.gitignore`);
        if (isFile(st.mode)) gitignoreStat = st;
      } catch {
        /* gone since it was listed */
      }
    }
    let known = rulesKnown && known0 !== undefined;
    if (known) {
      const at = entryAt(prevEntries, from, giRel);
      const prev = at !== undefined && at.k === 'f' && cacheBefore !== undefined && at.mt! < cacheBefore ? at : undefined;
      if ((gitignoreStat !== undefined) !== (prev !== undefined)) known = false;
      else if (prev) {
        const st = gitignoreStat!;
        known = st.size === prev.s && st.mtimeMs === prev.mt && st.ctimeMs === prev.ct && st.ino === prev.ino;
      }
    }
    if (gitignoreStat) {
      try {
        const buf = fs.readFile(giRel, MAX_GITIGNORE_BYTES);
        if (Buffer.isBuffer(buf)) rules = [...inherited, { dir: dirRel, text: buf.toString('utf8') }];
      } catch {
        /* an unreadable .gitignore ignores nothing */
      }
    }
    let cursor = from;
    for (const name of names) {
      const wait = pause();
      if (wait) await wait;
      if (isAlwaysSkipped(name)) continue;
      if (entries.length >= maxEntries || skipped.length >= MAX_SKIPPED_LISTED) {
        skipped.push({ p: dirRel === '' ? '.' : dirRel, reason: 'entry-cap' }); // this folder was not finished
        return;
      }
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      if (excludedHere?.has(name)) continue;
      let prev: TreeEntry | undefined;
      if (prevEntries.length !== 0) {
        cursor = seekPath(prevEntries, cursor, rel);
        const at = prevEntries[cursor];
        if (at !== undefined && at.p === rel) prev = at;
      }
      // A path the previous tree does not vouch for is matched against the .gitignore rules (by its kind, from the
      // lstat below).
      const check = rules.length > 0 && !(known && prev !== undefined);
      // Stat by the plain path (a /proc/self/fd path costs twice as much per name): if a racer swapped this folder
      // for a link since it was listed, what that finds outside is only metadata — a folder is entered, a file read
      // and a link's text read through WorkspaceFs, which refuses a path with a link on the way.
      let full = `${real}/${name}`;
      let st: LstatFields;
      try {
        st = lstatFieldsInto(full, stat);
      } catch (err) {
        if (check && ignoredBy(rules, rel, false) && ignoredBy(rules, rel, true)) continue; // ignored whatever it is
        const code = (err as NodeJS.ErrnoException).code;
        // Deeper than PATH_MAX by its full path: reached from its folder's descriptor instead (a short path).
        const near = code === 'ENAMETOOLONG' ? fs.at(rel) : undefined;
        try {
          if (near === undefined) throw err;
          st = lstatFields(near);
          full = near;
        } catch {
          // A name that is not UTF-8 arrives with U+FFFD in it and names nothing: listed, not silently lost.
          if (code === 'ENAMETOOLONG' || name.includes('\ufffd')) skipped.push({ p: rel, reason: 'unreadable' });
          continue; // else gone since readdir
        }
      }
      if (check && ignoredBy(rules, rel, isDir(st.mode))) continue;
      const mode = st.mode & 0o7777;
      if (isDir(st.mode)) {
        entries.push({ p: rel, k: 'd', m: mode });
        await walk(rel, rules, known, prev !== undefined ? cursor + 1 : cursor);
      } else if (isLink(st.mode)) {
        let target: string;
        try {
          const safe = fs.at(rel);
          if (safe === undefined) throw new Error('not reached without a link');
          target = readlinkSync(safe);
        } catch {
          skipped.push({ p: rel, reason: 'unreadable' });
          continue;
        }
        entries.push({ p: rel, k: 'l', m: mode, t: target });
      } else if (isFile(st.mode)) {
        if (st.size > limits.maxFileBytes) {
          skipped.push({ p: rel, reason: 'too-large', size: st.size });
        } else if (total + st.size > limits.maxTotalBytes) {
          skipped.push({ p: rel, reason: 'total-cap', size: st.size });
        } else {
          total += st.size;
          const cached =
            prev !== undefined &&
            cacheBefore !== undefined &&
            prev.k === 'f' &&
            prev.h !== undefined &&
            prev.m === mode &&
            prev.s === st.size &&
            prev.mt === st.mtimeMs &&
            prev.ct === st.ctimeMs &&
            prev.ino === st.ino &&
            prev.mt < cacheBefore &&
            prev.t === undefined;
          entries.push(cached ? prev! : { p: rel, k: 'f', m: mode, s: st.size, mt: st.mtimeMs, ct: st.ctimeMs, ino: st.ino });
        }
      } else {
        skipped.push({ p: rel, reason: 'special' });
      }
    }
  };
  try {
    await walk('', [], true, 0);
  } finally {
    fs.close();
  }
  // One sort of the whole list by path ("a-b" sorts before "a/x", so per-folder name order would not do).
  entries.sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  return { entries, skipped };
}
