/**
 * X2 copy-on-write journal (`<store>/pending/`): what a turn's checkpoint needs while the tool that changed the folder
 * has already run and the capture is not committed yet. Written by the gate before the tool runs, flushed to disk:
 *
 *   pending/<id>.pack    the pre-images' contents one after the other (fsynced first)
 *   pending/<id>.json    the record: the checkpoint's id and inputs, the pre-images, the pack's rows (fsynced, renamed
 *                        into place, the folder fsynced)
 *
 * The commit (store.ts, under the store lock) moves the pack into `packs/` with its index, commits the patched tree,
 * appends the checkpoint to the session's log and only then removes the record. A process killed in between leaves
 * the record: the next process that takes the store lock finishes the checkpoint from it (a capture of the folder
 * then, patched with the saved pre-images) and says so. A record whose process is still alive is left alone (that
 * process commits it); nothing here is read by garbage collection or the sweep of temporary files.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { commitPack, newPackId } from './objects.js';
import type { PreImage } from './patch.js';
import type { SnapshotInput } from './store-types.js';
import { badEntryPath, isObjectId } from './tree.js';
import { safeReaddir } from './layout.js';

export interface PendingRecord {
  v: 1;
  /** The record's (and its pack's) id. */
  id: string;
  /** The process that will commit it (while it lives). */
  pid: number;
  /** The id the checkpoint gets in the session's log (a finished commit is recognised by it). */
  checkpointId: string;
  createdAt: number;
  input: SnapshotInput;
  preimages: PreImage[];
  /** Rows of `pending/<id>.pack`: [hash, offset, length]. */
  rows: Array<[string, number, number]>;
}

const pendingDir = (storeDir: string): string => path.join(storeDir, 'pending');

/** Records written by this process and not yet committed (a record of our own pid but not here is a dead process's). */
const ours = new Set<string>();

function writeSynced(file: string, chunks: readonly Uint8Array[]): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    for (const c of chunks) {
      let done = 0;
      while (done < c.length) done += writeSync(fd, c, done, c.length - done);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* not possible here (some platforms): the renames are still atomic */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Saves the pre-images (contents, then the record) durably; returns the record. */
export function savePending(storeDir: string, r: Omit<PendingRecord, 'v' | 'id' | 'pid' | 'rows'>, contents: ReadonlyMap<string, Buffer>): PendingRecord {
  const dir = pendingDir(storeDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const id = newPackId();
  const rows: PendingRecord['rows'] = [];
  let offset = 0;
  for (const [h, data] of contents) {
    rows.push([h, offset, data.length]);
    offset += data.length;
  }
  const record: PendingRecord = { v: 1, id, pid: process.pid, rows, ...r };
  ours.add(id);
  if (rows.length) writeSynced(path.join(dir, `${id}.pack`), [...contents.values()]);
  const tmp = path.join(dir, `tmp-${id}.json`);
  writeSynced(tmp, [Buffer.from(JSON.stringify(record))]);
  renameSync(tmp, path.join(dir, `${id}.json`));
  fsyncDir(dir);
  return record;
}

/**
 * Makes the record's contents part of the store (under the store lock, before the tree that names them): its pack
 * moved into `packs/` and indexed. Already done (a commit killed later) or nothing to move: nothing happens.
 */
export function commitPendingPack(storeDir: string, packsDir: string, r: PendingRecord): Array<[string, { pack: string; offset: number; length: number }]> {
  const rows = r.rows.map(([h, offset, length]): [string, { pack: string; offset: number; length: number }] => [h, { pack: r.id, offset, length }]);
  if (!rows.length) return [];
  const from = path.join(pendingDir(storeDir), `${r.id}.pack`);
  try {
    statSync(from);
  } catch {
    return []; // moved by an earlier commit (its index written right after)
  }
  renameSync(from, path.join(packsDir, `tmp-${r.id}.pack`));
  commitPack(packsDir, r.id, new Map(rows));
  return rows;
}

/** Removes a committed record (its pack was moved, or had no contents). */
export function removePending(storeDir: string, r: Pick<PendingRecord, 'id'>): void {
  const dir = pendingDir(storeDir);
  rmSync(path.join(dir, `${r.id}.json`), { force: true });
  rmSync(path.join(dir, `${r.id}.pack`), { force: true });
  ours.delete(r.id);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const ID = /^[0-9a-z]+-[0-9a-f]{12}$/;

function parse(text: string): PendingRecord | undefined {
  let r: Partial<PendingRecord> | null;
  try {
    r = JSON.parse(text) as Partial<PendingRecord> | null;
  } catch {
    return undefined;
  }
  const i = r?.input;
  if (!r || r.v !== 1 || typeof r.id !== 'string' || !ID.test(r.id) || typeof r.pid !== 'number' || typeof r.checkpointId !== 'string') return undefined;
  if (!i || typeof i.sessionKey !== 'string' || typeof i.root !== 'string' || !path.isAbsolute(i.root) || typeof i.label !== 'string') return undefined;
  if (!Array.isArray(r.preimages) || !Array.isArray(r.rows)) return undefined;
  for (const p of r.preimages as unknown[]) {
    // Paths a tree may hold (a crafted record never puts `..` or `.git` into a checkpoint), `from` on the way to `p`.
    const x = p as Partial<Record<string, unknown>> | null;
    if (!x || typeof x.p !== 'string' || badEntryPath(x.p)) return undefined;
    if (x.k === 'absent') {
      if (typeof x.from !== 'string' || badEntryPath(x.from) || (x.from !== x.p && !x.p.startsWith(`${x.from}/`))) return undefined;
    } else if (x.k !== 'f' || !isObjectId(x.h) || !Number.isInteger(x.m) || (x.m as number) < 0 || (x.m as number) > 0o7777 || !Number.isSafeInteger(x.s)) return undefined;
  }
  return r as PendingRecord;
}

/**
 * Records left by processes that are gone (to be finished now), oldest first. A record this code could not have
 * written is removed (as a journal that cannot be read is ignored). Orphan packs (a process killed before its
 * record was in place) are removed once their process is gone.
 */
export function orphanedPending(storeDir: string): PendingRecord[] {
  const dir = pendingDir(storeDir);
  const names = safeReaddir(dir);
  if (!names.length) return [];
  const out: PendingRecord[] = [];
  const records = new Set<string>();
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith('tmp-')) continue;
    const id = name.slice(0, -5);
    records.add(id);
    let text: string;
    try {
      text = readFileSync(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    const r = parse(text);
    if (!r || r.id !== id) {
      removePending(storeDir, { id });
      continue;
    }
    if (ours.has(r.id) || (r.pid !== process.pid && alive(r.pid))) continue;
    out.push(r);
  }
  for (const name of names) {
    const id = name.replace(/^tmp-/, '').replace(/\.(pack|json)$/, '');
    if (records.has(id) || ours.has(id)) continue;
    const file = path.join(dir, name);
    try {
      if (Date.now() - statSync(file).mtimeMs > 60_000) rmSync(file, { force: true }); // never got its record
    } catch {
      /* gone meanwhile */
    }
  }
  return out.sort((a, b) => a.createdAt - b.createdAt);
}

/** Whether any record waits in the store (a cheap look: start-up decides by it). */
export function hasPending(storeDir: string): boolean {
  return safeReaddir(pendingDir(storeDir)).some((n) => n.endsWith('.json') && !n.startsWith('tmp-'));
}
