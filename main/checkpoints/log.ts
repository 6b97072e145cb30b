/**
 * X2: one append-only JSONL log per session (`sessions/<hash of the key>.jsonl`) — its checkpoints and restores.
 * Appends are one write each; a torn last line (a kill mid-append) is ignored on read and cut off before the
 * next append, so the log is never corrupted. Rewritten (temp file + rename) only by retention.
 */
import { closeSync, fsyncSync, openSync, readFileSync, readSync, renameSync, statSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface CheckpointRecord {
  type: 'checkpoint';
  id: string;
  createdAt: number;
  /** `turn`: before the first change of a turn (listed). `before-restore`: the state a restore replaced (for undo). */
  kind: 'turn' | 'before-restore';
  /** First line of the user message of the turn. */
  label: string;
  /** Files and symlinks captured. */
  files: number;
  /** Tree id in the store. */
  tree: string;
  /** The session's workspace (real path). */
  root: string;
  sessionKey: string;
  /** The transcript the turn was written to, and where its user message is (restore of the conversation). */
  sessionId?: string;
  runId?: string;
  runStartedAt?: number;
  message?: string;
  /** When the folder was captured (a turn): the run's start (prepared on the checkpoint worker) — else at this record's time. */
  takenAt?: number;
  /** Files the snapshot did not capture (too large, over the total cap, special, unreadable): count and first few. */
  skipped: number;
  skippedSample?: string[];
}

export interface RestoreRecord {
  type: 'restore';
  id: string;
  at: number;
  /** The checkpoint restored to. */
  target: string;
  /** The checkpoint of the state this restore replaced (an undo restores it). */
  before: string;
  /** This restore undid restore `undoOf`. */
  undoOf?: string;
  files: boolean;
  /** The conversation was switched from one transcript to another (a new branch, or back). */
  conversation?: { from: string; to: string };
  /** What stood uncaptured where the restore wrote, moved aside (apply.ts): the new names, and their time stamp. */
  keep?: string[];
  keptAt?: number;
  /** The path each of `keep` was moved aside from (a long name is shortened in its new one, workspace-fs.ts). */
  keptNames?: Record<string, string>;
  /**
   * The restore could neither be finished nor put back (why, one line): the folder was left partly restored and the
   * restore recorded as it stands, so that its undo puts the folder back as it was before it (restore.ts, recovery.ts).
   */
  incomplete?: string;
  summary: { modified: number; created: number; deleted: number };
}

export type LogRecord = CheckpointRecord | RestoreRecord;

export function readLog(file: string): LogRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: LogRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as LogRecord;
      if (r && (r.type === 'checkpoint' || r.type === 'restore')) out.push(r);
    } catch {
      /* a torn last line: ignored (and cut off before the next append) */
    }
  }
  return out;
}

/** The session key a log belongs to, from its first line only (a cheap look for the start-up sweep). */
export function logSessionKey(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(16 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString('utf8').split('\n')[0]!;
    const r = JSON.parse(first) as Partial<CheckpointRecord>;
    return typeof r.sessionKey === 'string' ? r.sessionKey : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Cuts a torn tail back to the last newline, then appends `records` in one write; fsynced when `sync` (a restore's
 * record; a checkpoint's is not worth a disk flush on every turn: a power cut can at worst lose the newest undo
 * point, never corrupt the log).
 */
export function appendLog(file: string, records: LogRecord[], sync = true): void {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    size = 0;
  }
  if (size > 0) {
    const buf = readFileSync(file);
    const lastNl = buf.lastIndexOf(0x0a);
    if (lastNl !== buf.length - 1) truncateSync(file, lastNl + 1);
  }
  const fd = openSync(file, 'a', 0o600);
  try {
    const data = Buffer.from(records.map((r) => JSON.stringify(r) + '\n').join(''));
    let done = 0;
    while (done < data.length) done += writeSync(fd, data, done, data.length - done);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the log atomically (retention). */
export function rewriteLog(file: string, records: LogRecord[]): void {
  const tmp = path.join(path.dirname(file), `tmp-${path.basename(file)}`);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, records.map((r) => JSON.stringify(r) + '\n').join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
