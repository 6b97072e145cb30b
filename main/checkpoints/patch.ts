/**
 * X2 copy-on-write: a capture taken while (or after) a `write` / `edit` changed one path, put back to the folder as it
 * was just before that change. The gate (gate.ts) saves the path's pre-image before the tool runs (preimage.ts);
 * whichever capture is then committed (the worker's, or one taken under the store lock) is patched with it here.
 * Pure functions (table-tested).
 *
 * - A file that existed: its entry becomes the saved one (content hash, mode, size) — without the stat cache key,
 *   so the next snapshot reads that file again. Only when the capture has the path (as an entry or skipped): a path
 *   the capture leaves out (ignored by .gitignore, excluded) is left out either way.
 * - A path that did not exist: the first missing folder on its way (or the path itself) and everything under it
 *   are removed — what the tool created.
 * - Either way, the atomic write's temporary file beside the path (`.<name>.<pid>.<hex>.tmp`, temp-name.ts) is
 *   removed: a capture walking that folder during the write may have seen it, and it was not there before.
 */
import { isTempNameFor } from '../tools/fs/temp-name.js';
import type { Tree, TreeEntry } from './tree.js';

export type PreImage =
  /** The file as it was (content in the store under `h`). */
  | { p: string; k: 'f'; m: number; h: string; s: number }
  /** `p` did not exist; `from` is the first missing part of its path (`p` itself when its folder existed). */
  | { p: string; k: 'absent'; from: string };

const under = (p: string, top: string) => p === top || p.startsWith(`${top}/`);

/** The index of `p` in sorted `entries`, or -(insertion point) - 1. */
function find(entries: readonly TreeEntry[], p: string): number {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const q = entries[mid]!.p;
    if (q === p) return mid;
    if (q < p) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/** `tree` with the pre-images put back (a new tree; `tree` is not changed). */
export function patchTree(tree: Tree, preimages: readonly PreImage[]): Tree {
  let entries = tree.entries;
  let skipped = tree.skipped;
  for (const pre of preimages) {
    const slash = pre.p.lastIndexOf('/');
    const dir = pre.p.slice(0, slash + 1);
    const name = pre.p.slice(slash + 1);
    const isTemp = (p: string) => p.startsWith(dir) && p.indexOf('/', dir.length) < 0 && isTempNameFor(name, p.slice(dir.length));
    entries = entries.filter((e) => !isTemp(e.p));
    skipped = skipped.filter((s) => !isTemp(s.p));
    if (pre.k === 'absent') {
      entries = entries.filter((e) => !under(e.p, pre.from));
      skipped = skipped.filter((s) => !under(s.p, pre.from));
      continue;
    }
    const at = find(entries, pre.p);
    const wasSkipped = skipped.some((s) => s.p === pre.p);
    if (at < 0 && !wasSkipped) continue; // not captured either way (ignored, excluded)
    const entry: TreeEntry = { p: pre.p, k: 'f', m: pre.m, h: pre.h, s: pre.s };
    const next = entries.filter((e) => !e.p.startsWith(`${pre.p}/`)); // a folder seen there since: not the pre-state
    const i = find(next, pre.p);
    if (i >= 0) next[i] = entry;
    else next.splice(-i - 1, 0, entry);
    entries = next;
    if (wasSkipped) skipped = skipped.filter((s) => s.p !== pre.p);
  }
  return { ...tree, entries, skipped };
}
