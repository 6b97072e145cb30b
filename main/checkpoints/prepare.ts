/**
 * X2: a snapshot in two halves, so the costly one can run beside the turn on another thread (prefetch.ts).
 *
 * `prepareCapture` does the work and makes nothing visible: it reads the workspace's pointer (its latest tree: the
 * stat cache and the delta base), scans the folder, reads and hashes what changed into a temporary pack
 * (`tmp-<id>.pack`, never listed by a reader), and encodes and compresses the tree. It needs no store lock: it only
 * reads committed files, and what it writes is temporary.
 *
 * `commitPrepared` (called by store.ts under the lock) makes it visible in a few file operations: only if the
 * pointer still names the tree it was prepared against (else it is thrown away and the capture is redone under the
 * lock). That check is what keeps the stat cache honest: the pointer's tree is a root of garbage collection, so every
 * content a cache hit relies on is still in the store, and the delta's base still exists.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { captureTree, type CaptureStats } from './capture.js';
import { keyHash } from './layout.js';
import { commitPack, PackWriter, type ObjectIndex } from './objects.js';
import type { ScanLimits } from './scan.js';
import { gzipTree, type TreeBin, type TreeFiles } from './tree-files.js';
import { fileCount, skippedText, type Tree } from './tree.js';
import { patchTree, type PreImage } from './patch.js';

export interface PrepareInput {
  /** The store folder (`<home>/checkpoints`). */
  dir: string;
  /** The workspace (a real path). */
  root: string;
  limits: ScanLimits;
  /** Absolute paths never entered (the store, the app's data folder). */
  exclude: readonly string[];
  racyMs?: number;
  /** The temporary pack's id (chosen by the caller, so it can remove the file if the preparing thread is stopped). */
  packId?: string;
}

export interface Prepared {
  root: string;
  /** The tree the workspace's pointer named when this was prepared (none: the workspace's first). */
  previous: string | undefined;
  treeId: string;
  /** The whole tree the stored delta builds on (none: stored whole). */
  treeBase?: string;
  /** The tree file's bytes (gzip). */
  treeGz: Uint8Array;
  /** Binary copies of whole trees to write beside it (tree-bin.ts): its own when whole, its base's when it had none. */
  treeBins?: TreeBin[];
  /** The temporary pack of new contents: [hash, offset, length] rows (none: nothing new). */
  pack?: { id: string; rows: Array<[string, number, number]> };
  files: number;
  /** Entries of the tree (files, folders, links): the pointer keeps it (prefetch.ts decides by it). */
  entries: number;
  skipped: number;
  skippedSample: string[];
  takenAt: number;
  stats: CaptureStats;
  /** The tree itself (only when prepared in this thread: kept as the next snapshot's stat cache). */
  tree?: Tree;
  /** The copy-on-write record (pending.ts) whose pre-images this capture was patched with. */
  patchedWith?: string;
}

export interface Pointer {
  tree: string;
  /** Entries of that tree (pointers written before this field: unknown). */
  entries?: number;
}

export const pointerFile = (dir: string, root: string): string => path.join(dir, 'workspaces', `${keyHash(root)}.json`);

/** The workspace's latest tree, as its pointer names it (undefined: none or unreadable). */
export function readPointer(dir: string, root: string): Pointer | undefined {
  try {
    const p = JSON.parse(readFileSync(pointerFile(dir, root), 'utf8')) as Partial<Pointer> | null;
    if (!p || typeof p.tree !== 'string') return undefined;
    return { tree: p.tree, ...(typeof p.entries === 'number' ? { entries: p.entries } : {}) };
  } catch {
    return undefined;
  }
}

export async function prepareCapture(
  input: PrepareInput,
  ctx: {
    treeFiles: TreeFiles;
    index: ObjectIndex;
    now: () => number;
    /** A copy-on-write change's pre-images that arrived while the folder was walked (patch.ts): applied before encoding. */
    patch?: () => { preimages: readonly PreImage[]; patchId: string } | undefined;
  },
): Promise<Prepared> {
  const pointer = readPointer(input.dir, input.root);
  let previous: { id: string; tree: Tree } | undefined;
  if (pointer) {
    try {
      previous = { id: pointer.tree, tree: ctx.treeFiles.loadForCache(pointer.tree) };
    } catch {
      previous = undefined; // unreadable: every file is read again and the tree stored whole
    }
  }
  const writer = new PackWriter(path.join(input.dir, 'packs'), input.packId);
  try {
    const captured = await captureTree(input.root, {
      limits: input.limits,
      exclude: input.exclude,
      previous: previous?.tree,
      ...(input.racyMs !== undefined ? { racyMs: input.racyMs } : {}),
      index: ctx.index,
      writer,
      now: ctx.now,
    });
    writer.close();
    const { stats } = captured;
    const cow = ctx.patch?.();
    const tree = cow ? patchTree(captured.tree, cow.preimages) : captured.tree;
    const { id, text, base, bins } = ctx.treeFiles.encode(tree, previous?.id);
    return {
      root: input.root,
      previous: pointer?.tree,
      treeId: id,
      ...(base ? { treeBase: base } : {}),
      treeGz: gzipTree(text),
      ...(bins.length ? { treeBins: bins } : {}),
      ...(writer.written.size ? { pack: { id: writer.id, rows: [...writer.written].map(([h, l]): [string, number, number] => [h, l.offset, l.length]) } } : {}),
      files: fileCount(tree),
      entries: tree.entries.length,
      skipped: tree.skipped.length,
      skippedSample: tree.skipped.slice(0, 20).map(skippedText),
      takenAt: tree.takenAt,
      stats,
      tree,
      ...(cow ? { patchedWith: cow.patchId } : {}),
    };
  } catch (err) {
    writer.abort();
    throw err;
  }
}

/** A prepared capture that can no longer be committed (store.ts captures again). */
export class StalePreparedError extends Error {
  override name = 'StalePreparedError';
}

/**
 * Makes a prepared capture visible (the caller holds the store lock): its pack, its tree file, then the pointer.
 * Refused with a StalePreparedError when the pointer moved since it was prepared (another snapshot of the folder came
 * between: its stat cache or delta base may be gone) — the caller throws it away and captures again.
 */
export function commitPrepared(p: Prepared, ctx: { dir: string; index: ObjectIndex; treeFiles: TreeFiles }): { id: string; tree?: Tree } {
  const pointer = readPointer(ctx.dir, p.root);
  if (pointer?.tree !== p.previous) throw new StalePreparedError('the workspace was checkpointed since this capture was prepared');
  if (p.pack) {
    const written = new Map(p.pack.rows.map(([h, offset, length]) => [h, { pack: p.pack!.id, offset, length }]));
    commitPack(path.join(ctx.dir, 'packs'), p.pack.id, written);
    ctx.index.addPack(p.pack.id, written);
  }
  ctx.treeFiles.write(p.treeId, p.treeGz, p.treeBins);
  if (p.tree) ctx.treeFiles.keep(p.treeId, p.tree, p.treeBase);
  const file = pointerFile(ctx.dir, p.root);
  writeFileSync(`${file}.tmp`, JSON.stringify({ root: p.root, tree: p.treeId, entries: p.entries }), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return { id: p.treeId, ...(p.tree ? { tree: p.tree } : {}) };
}

/**
 * A prepared capture with the pre-images of a copy-on-write change put back (patch.ts): re-encoded against the same
 * previous tree. `tree` is the capture's tree (kept by the thread that prepared it); the result keeps the patched one.
 */
export function patchPrepared(p: Prepared, tree: Tree, preimages: readonly PreImage[], patchId: string, treeFiles: TreeFiles): Prepared {
  const patched = patchTree(tree, preimages);
  const { id, text, base, bins } = treeFiles.encode(patched, p.previous);
  const { treeBase: _old, treeBins: oldBins, ...rest } = p;
  // The base's copy offered with the capture still holds; the capture's own (when whole) is replaced by the patched one's.
  const treeBins = [...(oldBins ?? []).filter((b) => b.id !== p.treeId), ...bins];
  return {
    ...rest,
    treeId: id,
    ...(base ? { treeBase: base } : {}),
    treeGz: gzipTree(text),
    ...(treeBins.length ? { treeBins } : {}),
    files: fileCount(patched),
    entries: patched.entries.length,
    skipped: patched.skipped.length,
    skippedSample: patched.skipped.slice(0, 20).map(skippedText),
    patchedWith: patchId,
    tree: patched,
  };
}
