/**
 * X2 checkpoint store on disk: names, the journal of the operation in progress, clean-up of what a killed process
 * left (temporary files, a pack without its index), and disk use. Plain file helpers for store.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RestoreRecord } from './log.js';
import { isObjectId } from './tree.js';

/** The operation in progress: a snapshot (changes nothing in the folder) or a restore (rolled forward after a kill). */
export type Journal =
  | { op: 'snapshot'; sessionKey: string; root: string; startedAt: number }
  | { op: 'restore'; sessionKey: string; root: string; startedAt: number; tree?: string; record: RestoreRecord; stamp?: number };

/** File names from a session key or a folder path (never the text itself in a file name). */
export const keyHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** Short, sortable, typable ids of checkpoints and restores ("mij3k2a0-7f3c"). */
export function newCheckpointId(now: number): string {
  return `${now.toString(36)}-${randomBytes(2).toString('hex')}`;
}

export function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A restore's journal is flushed to disk before the folder changes; a snapshot's need not be (it changes nothing). */
export function writeJournal(file: string, j: Journal): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(j), { mode: 0o600, flush: j.op === 'restore' });
  renameSync(tmp, file);
}

export function readJournal(file: string): Journal | undefined {
  let j: Partial<Journal> | null;
  try {
    j = JSON.parse(readFileSync(file, 'utf8')) as Partial<Journal> | null;
  } catch {
    return undefined; // none (or a temporary one never renamed into place: nothing had started)
  }
  // Only a journal this code could have written is acted on (anything else: as if there were none).
  if (!j || (j.op !== 'snapshot' && j.op !== 'restore') || typeof j.sessionKey !== 'string' || typeof j.root !== 'string' || !path.isAbsolute(j.root)) return undefined;
  if (j.op === 'restore' && ((j.tree !== undefined && !isObjectId(j.tree)) || typeof j.record !== 'object' || j.record === null)) return undefined;
  return j as Journal;
}

export function clearJournal(file: string): void {
  rmSync(file, { force: true });
}

/** Removes temporary files, and packs whose index was never written (unknown to every reader). */
export function sweepTemporaries(packsDir: string, dirs: readonly string[]): void {
  for (const d of dirs) for (const name of safeReaddir(d)) if (name.startsWith('tmp-')) rmSync(path.join(d, name), { force: true });
  const names = new Set(safeReaddir(packsDir));
  for (const name of names) if (name.endsWith('.pack') && !names.has(`${name.slice(0, -5)}.idx`)) rmSync(path.join(packsDir, name), { force: true });
}

/**
 * Removes temporary packs older than `maxAgeMs`: a capture prepared on the checkpoint worker (prefetch.ts) by a
 * process that was killed before its turn committed or dropped it. Younger ones may still be in use (a run waiting
 * for its first change); one removed while in use is only captured again.
 */
export function sweepStaleTemporaries(packsDir: string, now: number, maxAgeMs: number): void {
  for (const name of safeReaddir(packsDir)) {
    if (!name.startsWith('tmp-')) continue;
    const file = path.join(packsDir, name);
    try {
      if (now - statSync(file).mtimeMs > maxAgeMs) rmSync(file, { force: true });
    } catch {
      /* removed meanwhile */
    }
  }
}

export function diskUsage(dirs: readonly string[], sessionsDir: string): { bytes: number; sessions: number } {
  let bytes = 0;
  for (const d of dirs) {
    for (const n of safeReaddir(d)) {
      try {
        bytes += statSync(path.join(d, n)).size;
      } catch {
        /* removed meanwhile */
      }
    }
  }
  return { bytes, sessions: safeReaddir(sessionsDir).filter((n) => n.endsWith('.jsonl')).length };
}
