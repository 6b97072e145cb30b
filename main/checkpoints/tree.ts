/**
 * X2 trees: what one checkpoint records of a workspace. A tree is a sorted list of entries (relative posix paths):
 * folders, regular files (content hash, mode, size) and symlinks (their target text, never followed). The stat
 * fields (mtime, ctime, inode) are only a cache key for the next snapshot; what a restore compares is kind, mode,
 * content hash and link target. Pure functions only: encode/decode, hashing, diffs (table-tested).
 */
import { createHash } from 'node:crypto';

export type EntryKind = 'd' | 'f' | 'l';

export interface TreeEntry {
  /** Relative posix path ("src/app.js"), never "" or with "..". */
  p: string;
  k: EntryKind;
  /** Permission bits (mode & 0o7777). */
  m: number;
  /** Files: sha256 of the content (hex). */
  h?: string;
  /** Files: size in bytes. */
  s?: number;
  /** Symlinks: the link text as stored on disk. */
  t?: string;
  /** Stat cache key (files): mtimeMs, ctimeMs, inode. */
  mt?: number;
  ct?: number;
  ino?: number;
}

/** A file the snapshot did not capture (and a restore therefore leaves alone). */
/** One skipped path as a person reads it in a list: `big.iso (too-large)`, `data/… (entry-cap)` for an unfinished folder. */
export const skippedText = (s: SkippedEntry): string => (s.reason === 'entry-cap' ? `${s.p === '.' ? '.' : s.p}/… (entry-cap)` : `${s.p} (${s.reason})`);

export interface SkippedEntry {
  p: string;
  /** `entry-cap`: a folder the walk did not finish (the entry cap was reached; `.` the workspace itself). */
  reason: 'too-large' | 'total-cap' | 'special' | 'unreadable' | 'entry-cap';
  size?: number;
}

export interface Tree {
  v: 1;
  /** Real path of the workspace when it was taken. */
  root: string;
  /** When the scan started (ms): stat entries at or after it are "racy" and are re-read next time. */
  takenAt: number;
  entries: TreeEntry[];
  skipped: SkippedEntry[];
}

export const TREE_VERSION = 1;

/** Canonical JSON of a tree; its sha256 is the tree's id. */
export function encodeTree(tree: Tree): string {
  return JSON.stringify({ v: tree.v, root: tree.root, takenAt: tree.takenAt, entries: tree.entries, skipped: tree.skipped });
}

export function treeId(encoded: string): string {
  return createHash('sha256').update(encoded).digest('hex');
}

/**
 * Code points HFS+ ignores in names (and NTFS's trailing dots and spaces): `.g\u200cit` or `.GIT.` is `.git` there.
 * The list git itself checks (is_hfs_dotgit / is_ntfs_dotgit).
 */
const IGNORABLE = '[\\u200c-\\u200f\\u202a-\\u202e\\u206a-\\u206f\\ufeff]*';
const TRAILING = '[. \\u200c-\\u200f\\u202a-\\u202e\\u206a-\\u206f\\ufeff]*';
/** One name that is `.git` once the ignorable code points are dropped, case folded and trailing dots / spaces cut. */
const DOT_GIT = `${IGNORABLE}\\.${IGNORABLE}g${IGNORABLE}i${IGNORABLE}t${TRAILING}`;
const DOT_GIT_NAME = new RegExp(`^${DOT_GIT}$`, 'i');
const DOT_GIT_PART = new RegExp(`(?:^|/)${DOT_GIT}(?:/|$)`, 'i');
/** An empty, "." or ".." part of a path (a leading or trailing "/" and "//" included). */
const DOT_PART = /(?:^|\/)\.{0,2}(?:\/|$)/;

/**
 * A name that is (or, on some file system, opens) a `.git`: never captured, never restored. A restore that wrote
 * `.GIT/hooks/pre-commit` on macOS or Windows would plant a hook git runs. One regular expression (it runs on every
 * name a snapshot lists and every path a restore loads) for what git checks in is_hfs_dotgit / is_ntfs_dotgit.
 */
export function isDotGit(name: string): boolean {
  if (process.platform === 'win32' && name.toLowerCase() === 'git~1') return true;
  // Every spelling starts with "." or an ignorable code point (all from U+200C up): most names stop here.
  const c = name.charCodeAt(0);
  return (c === 0x2e || c >= 0x200c) && DOT_GIT_NAME.test(name);
}

const HASH = /^[0-9a-f]{64}$/;
/** Tree and object ids (sha256 hex) — checked before one names a file in the store. */
export const isObjectId = (id: unknown): id is string => typeof id === 'string' && HASH.test(id);

/** A path a restore may write: relative, '/'-separated, no empty / "." / ".." part, no NUL, no `.git` in any spelling. */
export function badEntryPath(p: unknown): string | undefined {
  if (typeof p !== 'string' || p === '') return 'an empty path';
  if (DOT_PART.test(p) || p.includes('\0') || (process.platform === 'win32' && (p.includes('\\') || /^[a-z]:/i.test(p)))) return `the path ${JSON.stringify(p)}`;
  if (DOT_GIT_PART.test(p) || (process.platform === 'win32' && p.split('/').some(isDotGit))) return `a .git path (${JSON.stringify(p)})`;
  return undefined;
}

/**
 * Why a tree read from the store must not be used (a damaged or crafted store), or undefined: every entry a valid
 * path in strict path order, a known kind, permission bits only, files with a sha256, symlinks with their text,
 * and every entry's folder an entry of the tree (so nothing is reached through a symlink of the tree itself).
 */
export function treeProblem(tree: Pick<Tree, 'entries'>): string | undefined {
  const folders = new Set<string>();
  let prev: string | undefined;
  for (const e of tree.entries as unknown[]) {
    const x = e as Partial<TreeEntry> | null;
    if (!x || typeof x !== 'object') return 'an entry that is not an object';
    const bad = badEntryPath(x.p);
    if (bad) return bad;
    const p = x.p!;
    if (prev !== undefined && !(prev < p)) return `entries out of order at ${JSON.stringify(p)}`;
    prev = p;
    if (x.k !== 'd' && x.k !== 'f' && x.k !== 'l') return `an unknown kind at ${JSON.stringify(p)}`;
    if (!Number.isInteger(x.m) || x.m! < 0 || x.m! > 0o7777) return `a bad mode at ${JSON.stringify(p)}`;
    if (x.k === 'f' && !isObjectId(x.h)) return `a file without its content hash at ${JSON.stringify(p)}`;
    if (x.k === 'l' && (typeof x.t !== 'string' || x.t === '' || x.t.includes('\0'))) return `a symlink without its text at ${JSON.stringify(p)}`;
    const slash = p.lastIndexOf('/');
    if (slash !== -1 && !folders.has(p.slice(0, slash))) return `${JSON.stringify(p)} outside a folder of the tree`;
    if (x.k === 'd') folders.add(p);
  }
  return undefined;
}

export function fileCount(tree: Pick<Tree, 'entries'>): number {
  let n = 0;
  for (const e of tree.entries) if (e.k !== 'd') n++;
  return n;
}

/** Same content as far as a restore is concerned (stat fields ignored). */
function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
  return a.k === b.k && a.m === b.m && a.h === b.h && a.t === b.t;
}

export interface TreeChange {
  path: string;
  kind: 'created' | 'modified' | 'deleted';
  /** The entry in the tree a restore would leave (absent when the path goes away). */
  to?: TreeEntry;
  from?: TreeEntry;
}

/**
 * What a restore from `current` to `target` changes, by path, folders included (sorted by path). "created" = the
 * restore brings it back (it is in the target, not now); "deleted" = the restore removes it.
 */
export function diffTrees(current: Pick<Tree, 'entries'>, target: Pick<Tree, 'entries'>): TreeChange[] {
  const out: TreeChange[] = [];
  const a = current.entries;
  const b = target.entries;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.p < y.p)) {
      out.push({ path: x!.p, kind: 'deleted', from: x });
      i++;
    } else if (x === undefined || y.p < x.p) {
      out.push({ path: y.p, kind: 'created', to: y });
      j++;
    } else {
      if (!sameEntry(x, y)) out.push({ path: x.p, kind: 'modified', from: x, to: y });
      i++;
      j++;
    }
  }
  return out;
}

/** N files modified, M created, K deleted (folders not counted) — the summary a person sees before a restore. */
export function summarizeChanges(changes: readonly TreeChange[]): { modified: number; created: number; deleted: number } {
  const s = { modified: 0, created: 0, deleted: 0 };
  for (const c of changes) {
    const kind = (c.to ?? c.from)!.k;
    if (kind === 'd' && (c.kind !== 'modified' || c.from?.k === 'd')) continue;
    s[c.kind]++;
  }
  return s;
}
