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
export interface SkippedEntry {
  p: string;
  reason: 'too-large' | 'total-cap' | 'special' | 'unreadable';
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

const byPath = (a: { p: string }, b: { p: string }) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0);

export function sortEntries<T extends { p: string }>(entries: T[]): T[] {
  return entries.sort(byPath);
}

/** Canonical JSON of a tree; its sha256 is the tree's id. */
export function encodeTree(tree: Tree): string {
  return JSON.stringify({ v: tree.v, root: tree.root, takenAt: tree.takenAt, entries: tree.entries, skipped: tree.skipped });
}

export function treeId(encoded: string): string {
  return createHash('sha256').update(encoded).digest('hex');
}

export function decodeTree(text: string): Tree {
  const t = JSON.parse(text) as Tree;
  if (t.v !== TREE_VERSION || !Array.isArray(t.entries)) throw new Error(`Unsupported checkpoint tree (version ${String(t.v)}).`);
  return { ...t, skipped: t.skipped ?? [] };
}

export function fileCount(tree: Pick<Tree, 'entries'>): number {
  let n = 0;
  for (const e of tree.entries) if (e.k !== 'd') n++;
  return n;
}

/** Same content as far as a restore is concerned (stat fields ignored). */
export function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
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
