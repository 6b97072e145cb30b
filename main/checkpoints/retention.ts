/**
 * X2 retention: which records of a session's log are kept (pure, table-tested), the logs of sessions that are gone,
 * and garbage collection of trees and packs nothing references any more (mark and sweep under the store lock; a pack
 * that is mostly dead is repacked). A turn that drops checkpoints collects only once a tenth of `keep` dropped
 * checkpoints wait (`collectionDue`, counted in `gc.json`), so a full session does not pay a whole mark and sweep
 * at every turn.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { safeReaddir, sweepStaleTemporaries } from './layout.js';
import { logSessionKey, readLog, rewriteLog, type CheckpointRecord, type LogRecord, type RestoreRecord } from './log.js';
import { ObjectReader, PackWriter, type ObjectIndex } from './objects.js';
import type { StoredTree, TreeFiles } from './tree-files.js';
import type { TreeEntry } from './tree.js';

/** A temporary pack this old is left over from a killed process (a live one is written within a turn's start). */
const STALE_TEMPORARY_MS = 3600_000;

/** Restores kept per session (each keeps the checkpoint of the state it replaced, for undo). */
const KEEP_RESTORES = 20;

/**
 * Keeps the last `keep` turn checkpoints that are younger than `maxAgeMs`, the last KEEP_RESTORES restores, and the
 * before-restore checkpoints those restores need. Order is kept.
 */
function pruneRecords(records: readonly LogRecord[], o: { keep: number; maxAgeMs: number; now: number }): LogRecord[] {
  const turns = records.filter((r): r is CheckpointRecord => r.type === 'checkpoint' && r.kind === 'turn');
  const keptTurns = new Set(turns.slice(Math.max(0, turns.length - o.keep)).filter((r) => o.now - r.createdAt <= o.maxAgeMs).map((r) => r.id));
  const restores = records.filter((r): r is RestoreRecord => r.type === 'restore');
  const keptRestores = new Set(restores.slice(Math.max(0, restores.length - KEEP_RESTORES)).map((r) => r.id));
  const needed = new Set(restores.filter((r) => keptRestores.has(r.id)).map((r) => r.before));
  return records.filter((r) =>
    r.type === 'restore' ? keptRestores.has(r.id) : r.kind === 'turn' ? keptTurns.has(r.id) : needed.has(r.id),
  );
}

/**
 * Drops from a session's log what `pruneRecords` does not keep; true when something was dropped. `beforeRewrite` is
 * told how many checkpoints go before the log loses them (`countDropped`: a kill in between over-counts, never under).
 */
export function pruneLog(file: string, o: { keep: number; maxAgeMs: number; now: number }, beforeRewrite?: (checkpoints: number) => void): boolean {
  const all = readLog(file);
  const kept = pruneRecords(all, o);
  if (kept.length === all.length) return false;
  const ids = new Set(kept.map((r) => r.id));
  beforeRewrite?.(all.filter((r) => r.type === 'checkpoint' && !ids.has(r.id)).length);
  rewriteLog(file, kept);
  return true;
}

/** The parts of the checkpoint store that garbage collection reads and removes from (store.ts). */
export interface StoreFiles {
  packsDir: string;
  treesDir: string;
  sessionsDir: string;
  workspacesDir: string;
  index: ObjectIndex;
  treeFiles: TreeFiles;
  /** `gc.json`: the checkpoints dropped since the last collection (`countDropped`, `collectionDue`). */
  stateFile: string;
}

/** Trees on disk: by their JSON, or by a binary copy left without it (collected like any tree nothing names). */
function treeIds(treesDir: string): string[] {
  const ids = new Set<string>();
  for (const n of safeReaddir(treesDir)) {
    if (n.endsWith('.json.gz')) ids.add(n.slice(0, -8));
    else if (n.endsWith('.bin') && !n.startsWith('tmp-')) ids.add(n.slice(0, -4));
  }
  return [...ids];
}

function removePack(s: StoreFiles, id: string): void {
  // Index first: a reader never sees an index whose pack is gone.
  rmSync(path.join(s.packsDir, `${id}.idx`), { force: true });
  rmSync(path.join(s.packsDir, `${id}.pack`), { force: true });
  s.index.forget(id);
}

/** Share of a pack's bytes that must be live for it to be kept as it is; below it the pack is rewritten. */
const REPACK_BELOW = 0.5;

/**
 * Mark: the contents the trees in `liveTrees` hold (as materialised: a content only an older base held is not
 * live, though the base's file stays), and the base of every delta among them added to `liveTrees` (a delta is
 * rebuilt from it). A tree that cannot be read is dropped from `liveTrees` and keeps nothing alive.
 *
 * Deltas are not materialised: they are grouped by base, each base is read once, and a base entry's content is live
 * when the base itself is live or when at least one of its live deltas neither replaces nor removes that path —
 * what materialising every tree would give, at one base read per base instead of a whole tree per checkpoint
 * (a session at its 100 checkpoints on 10 000 files: every snapshot collects).
 */
export function markLive(trees: Pick<TreeFiles, 'stored'>, liveTrees: Set<string>): Set<string> {
  const live = new Set<string>();
  const whole = new Set<string>();
  const deltas = new Map<string, Array<{ id: string; set: readonly TreeEntry[]; del: readonly string[] }>>();
  for (const id of [...liveTrees]) {
    let form: StoredTree;
    try {
      form = trees.stored(id);
    } catch {
      liveTrees.delete(id); // a missing tree keeps nothing alive
      continue;
    }
    if ('set' in form) {
      const list = deltas.get(form.base) ?? [];
      list.push({ id, set: form.set, del: form.del });
      deltas.set(form.base, list);
      continue;
    }
    whole.add(id);
    for (const e of form.entries) if (e.h) live.add(e.h);
    if (form.base !== undefined) liveTrees.add(form.base); // a delta held in memory, materialised
  }
  for (const [baseId, onBase] of deltas) {
    let base: readonly TreeEntry[] | undefined;
    try {
      const form = trees.stored(baseId);
      // A delta is always stored against a whole tree (a delta on a delta is a damaged store).
      if (!('set' in form) && form.base === undefined) base = form.entries;
    } catch {
      base = undefined;
    }
    if (base === undefined) {
      for (const d of onBase) liveTrees.delete(d.id); // its base is gone or damaged: it cannot be rebuilt
      continue;
    }
    liveTrees.add(baseId);
    for (const d of onBase) for (const e of d.set) if (e.h) live.add(e.h);
    if (whole.has(baseId)) continue; // every entry of the base is live already
    const replaced = new Map<string, number>();
    for (const d of onBase) {
      const paths = new Set<string>(d.del);
      for (const e of d.set) paths.add(e.p);
      for (const changed of paths) replaced.set(changed, (replaced.get(changed) ?? 0) + 1);
    }
    for (const e of base) if (e.h && (replaced.get(e.p) ?? 0) < onBase.length) live.add(e.h);
  }
  return live;
}

async function collectGarbage(s: StoreFiles, named: ReadonlySet<string>): Promise<{ trees: number; packs: number; repacked: number }> {
  const liveTrees = new Set<string>(named);
  const live = markLive(s.treeFiles, liveTrees);
  let trees = 0;
  for (const id of treeIds(s.treesDir)) {
    if (!liveTrees.has(id)) {
      s.treeFiles.remove(id);
      trees++;
    }
  }
  let packs = 0;
  let repacked = 0;
  // A content may be in several packs (a snapshot dedupes only against the indexes it loaded): the packs with the
  // most live bytes are kept first, and a later pack counts only what none kept before it holds.
  const liveBytesOf = (pack: string) => {
    let n = 0;
    for (const [h, loc] of s.index.objectsOf(pack)) if (live.has(h)) n += loc.length;
    return n;
  };
  const held = new Set<string>();
  const order = s.index.packIds().map((pack) => ({ pack, bytes: liveBytesOf(pack) })).sort((a, b) => b.bytes - a.bytes);
  for (const { pack } of order) {
    const objects = [...s.index.objectsOf(pack)];
    let total = 0;
    let liveBytes = 0;
    for (const [h, loc] of objects) {
      total += loc.length;
      if (live.has(h) && !held.has(h)) liveBytes += loc.length;
    }
    if (liveBytes === 0) {
      removePack(s, pack);
      packs++;
    } else if (liveBytes < total * REPACK_BELOW) {
      const writer = new PackWriter(s.packsDir);
      const reader = new ObjectReader(s.index);
      try {
        for (const [h] of objects) if (live.has(h) && !held.has(h)) writer.add(h, reader.read(h));
      } catch (err) {
        writer.abort();
        throw err;
      } finally {
        reader.close();
      }
      writer.commit();
      s.index.addPack(writer.id, writer.written);
      for (const h of writer.written.keys()) held.add(h);
      removePack(s, pack);
      repacked++;
    } else {
      for (const [h] of objects) if (live.has(h)) held.add(h);
    }
  }
  return { trees, packs, repacked };
}

/** The trees the session logs and the workspace pointers name (what a collection keeps, with their deltas' bases). */
function namedTrees(s: StoreFiles): Set<string> {
  const named = new Set<string>();
  for (const n of safeReaddir(s.sessionsDir)) {
    if (n.endsWith('.jsonl')) for (const r of readLog(path.join(s.sessionsDir, n))) if (r.type === 'checkpoint') named.add(r.tree);
  }
  for (const n of safeReaddir(s.workspacesDir)) {
    if (!n.endsWith('.json')) continue;
    try {
      named.add((JSON.parse(readFileSync(path.join(s.workspacesDir, n), 'utf8')) as { tree: string }).tree);
    } catch {
      /* unreadable pointer: names nothing */
    }
  }
  return named;
}

/**
 * Collects what no session log and no workspace pointer references (the caller holds the store lock), and temporary
 * packs a killed process left; then nothing dropped waits any more (`gc.json` back to 0, after the sweep: a kill
 * before it only collects again).
 */
export async function collectStore(s: StoreFiles): Promise<void> {
  const named = namedTrees(s);
  s.index.refresh();
  await collectGarbage(s, named);
  sweepStaleTemporaries(s.packsDir, Date.now(), STALE_TEMPORARY_MS);
  writeDropped(s.stateFile, 0);
}

/** Share of `keep` a collection waits for: the checkpoints of this many drops (at least one) are collected together. */
export const COLLECT_SHARE = 0.1;

/**
 * Whether the checkpoints dropped since the last collection are worth one (pure, table-tested): a tenth of `keep`, at
 * least one. So what waits is at most the trees of that many checkpoints and the contents only they held (the store
 * holds at most a tenth more checkpoints' worth than it keeps), and the mark — every kept tree and every pack index
 * read — is paid once per that many drops instead of at every turn of a full session.
 */
export function collectionDue(o: { dropped: number; keep: number }): boolean {
  return o.dropped >= Math.max(1, Math.ceil(o.keep * COLLECT_SHARE));
}

/**
 * Checkpoints dropped since the last collection, from `gc.json`. Not known — no file (a store no collection wrote
 * it in yet, or from before it), a damaged or negative figure — counts as Infinity: due, and the collection writes it.
 */
export function readDropped(file: string): number {
  try {
    const n = (JSON.parse(readFileSync(file, 'utf8')) as { dropped?: unknown } | null)?.dropped;
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : Infinity;
  } catch {
    return Infinity;
  }
}

/** Replaced atomically, not fsynced: a power cut may lose a count, leaving at most one share more to wait once. */
function writeDropped(file: string, dropped: number): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify({ dropped }), { mode: 0o600 });
  renameSync(tmp, file);
}

/** Adds `n` dropped checkpoints to `gc.json` (before the log loses them); returns how many wait now. */
export function countDropped(file: string, n: number): number {
  const total = readDropped(file) + n;
  if (n > 0 && Number.isFinite(total)) writeDropped(file, total);
  return total;
}

/** The session logs in `sessionsDir` of sessions that no longer exist (`isLive` false), last written over `minAgeMs` ago. */
export async function staleSessionLogs(sessionsDir: string, o: { now: number; minAgeMs: number; isLive: (sessionKey: string) => Promise<boolean> }): Promise<string[]> {
  const out: string[] = [];
  for (const name of safeReaddir(sessionsDir).filter((n) => n.endsWith('.jsonl'))) {
    const file = path.join(sessionsDir, name);
    try {
      if (statSync(file).mtimeMs > o.now - o.minAgeMs) continue;
    } catch {
      continue;
    }
    const key = logSessionKey(file);
    if (key !== undefined && !(await o.isLive(key))) out.push(file);
  }
  return out;
}
