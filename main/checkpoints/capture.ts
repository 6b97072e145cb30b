/**
 * X2: the workspace as a tree with content hashes. A file whose size, mtime, ctime and inode match the previous tree
 * of this workspace (the stat cache) and whose content the store holds is not read again — that keeps a later
 * snapshot of 10 000 unchanged files to a directory walk. An entry written less than `racyMs` before that tree was
 * taken is never trusted (a change in the same timestamp tick would be invisible; git calls these "racy").
 * Files are opened without following a symlink anywhere on the way, and checked to be regular files on the open
 * descriptor, never blocking on a FIFO and never reading past the per-file cap (WorkspaceFs.readFile).
 */
import type { ObjectIndex, PackWriter } from './objects.js';
import { sha256 } from './objects.js';
import { entryAt, scanWorkspace, yielder, type ScanLimits } from './scan.js';
import type { SkippedEntry, Tree, TreeEntry } from './tree.js';
import { TREE_VERSION } from './tree.js';
import { WorkspaceFs } from './workspace-fs.js';

/** Timestamps within this window of a tree's scan start are not trusted as a cache key (coarse clocks: 2 s on FAT). */
export const DEFAULT_RACY_MS = 2000;

/** The read buffer of a capture: files below this size (nearly all) are read into it. */
const SCRATCH_BYTES = 256 * 1024;

export interface CaptureOptions {
  limits: ScanLimits;
  /** Absolute paths never entered (the app's data folder inside the workspace). */
  exclude?: readonly string[];
  /** The previous tree of this workspace (stat cache). */
  previous?: Tree;
  racyMs?: number;
  index: ObjectIndex;
  /** New contents go here; without a writer nothing is stored (a preview). */
  writer?: PackWriter;
  now?: () => number;
}

export interface CaptureStats {
  /** Files read (not answered by the stat cache). */
  read: number;
  bytesRead: number;
}

export async function captureTree(root: string, opts: CaptureOptions): Promise<{ tree: Tree; stats: CaptureStats }> {
  const now = opts.now ?? Date.now;
  const takenAt = now();
  const racyMs = opts.racyMs ?? DEFAULT_RACY_MS;
  const trustBefore = (opts.previous?.takenAt ?? 0) - racyMs;
  const prevEntries = opts.previous?.root === root ? opts.previous.entries : [];
  const scan = await scanWorkspace(root, opts.limits, opts.exclude, opts.previous?.root === root ? { entries: prevEntries, cacheBefore: trustBefore } : undefined);
  const stats: CaptureStats = { read: 0, bytesRead: 0 };
  const entries: TreeEntry[] = [];
  const skipped: SkippedEntry[] = [...scan.skipped];
  const pause = yielder();
  const fs = new WorkspaceFs(root);
  // Each file is read into this one buffer, hashed and copied into the pack at once (no buffer per file).
  let scratch: Buffer | undefined;
  try {
    for (const e of scan.entries) {
      // A folder, a link, or a file the scan answered from the stat cache (the previous tree's own entry, hash included).
      if (e.k !== 'f' || e.h !== undefined) {
        entries.push(e);
        continue;
      }
      // Not answered by the scan (a mode change, a racy entry, a new path): the previous entry looked up by path.
      const c = prevEntries.length ? entryAt(prevEntries, 0, e.p) : undefined;
      // The previous tree of a workspace is a root of garbage collection, so every content it names is in the store:
      // a hit needs no look at the pack indexes (a snapshot does not load them at all).
      if (c && c.k === 'f' && c.h && c.s === e.s && c.mt === e.mt && c.ct === e.ct && c.ino === e.ino && c.mt! < trustBefore) {
        e.h = c.h;
        entries.push(e);
        continue;
      }
      const wait = pause();
      if (wait) await wait;
      let data: ReturnType<WorkspaceFs['readFile']>;
      try {
        data = fs.readFile(e.p, opts.limits.maxFileBytes, (scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES)));
      } catch {
        skipped.push({ p: e.p, reason: 'unreadable', size: e.s });
        continue;
      }
      if (data === 'gone') continue;
      if (data === 'not-file' || data === 'too-large') {
        skipped.push({ p: e.p, reason: data === 'too-large' ? 'too-large' : 'special' });
        continue;
      }
      stats.read++;
      stats.bytesRead += data.length;
      const h = sha256(data);
      // Deduplicated against the indexes loaded in this process (a content already stored elsewhere may be stored
      // again: harmless, and far cheaper than reading every index for the few files a later snapshot reads).
      if (opts.writer && !opts.index.has(h)) opts.writer.add(h, data);
      e.h = h;
      e.s = data.length;
      entries.push(e);
    }
  } finally {
    fs.close();
  }
  skipped.sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  return { tree: { v: TREE_VERSION, root, takenAt, entries, skipped }, stats };
}
