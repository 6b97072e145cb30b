/**
 * What a restore killed part-way leaves in a home folder's checkpoint store (X2 tests of recovery): made by a real
 * restore whose last steps are then taken back — its record moved from the session's log back into the journal,
 * and the files it had not reached yet written back as they were. Also: the immutable flag (what stops root's
 * writes), and a folder read back as path → text.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readLog, rewriteLog, type RestoreRecord } from '../../main/checkpoints/log.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';

export const write = (root: string, rel: string, text: string): void => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};

/** Every file under `root`, by relative path. */
export function readFolder(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const d of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else out[r] = readFileSync(path.join(root, r), 'utf8');
    }
  };
  walk('');
  return out;
}

export const chattr = (flag: '+i' | '-i', p: string): boolean => spawnSync('chattr', [flag, p], { stdio: 'ignore' }).status === 0;

/** Root, and a temp file system that keeps the immutable flag (ext4, tmpfs ≥ 6.0). */
export const canImmutable = ((): boolean => {
  if (process.getuid?.() !== 0) return false;
  const d = mkdtempSync(path.join(tmpdir(), 'agentdesk-chattr-'));
  try {
    const ok = chattr('+i', d);
    if (ok) chattr('-i', d);
    return ok;
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
})();

/** The folder when the restore was asked for… */
export const NOW = { 'a/f.txt': 'a now\n', 'b/f.txt': 'b now\n', 'c/f.txt': 'c now\n', 'new.txt': 'created since\n' };
/** …and when it was killed: new.txt removed and a/f.txt written back, b/ and c/ not reached. */
export const HALF = { 'a/f.txt': 'a then\n', 'b/f.txt': 'b now\n', 'c/f.txt': 'c now\n' };

/**
 * Session `session` (`s`) of the store in `home` (`<home>/checkpoints`): a checkpoint of `ws` ("then"), changed since
 * (NOW), and a restore to it killed after its journal, its removal of new.txt and its write of a/f.txt (HALF). With
 * `other`: session "other" has a checkpoint of that folder.
 */
export async function killedRestore(home: string, ws: string, other?: string, session = 's'): Promise<{ store: CheckpointStore; record: RestoreRecord; cpId: string }> {
  const store = new CheckpointStore(CheckpointStore.dirIn(home), { racyMs: 0, onNotice: () => {} });
  if (other) {
    write(other, 'x.txt', 'x\n');
    await store.snapshot({ sessionKey: 'other', root: other, label: 'other' });
  }
  for (const n of ['a', 'b', 'c']) write(ws, `${n}/f.txt`, `${n} then\n`);
  const cp = await store.snapshot({ sessionKey: session, root: ws, label: 'before' });
  for (const [rel, text] of Object.entries(NOW)) write(ws, rel, text);
  await store.restore({ sessionKey: session, id: cp.id, files: true });
  const logs = readdirSync(store.sessionsDir).map((n) => path.join(store.sessionsDir, n));
  const logFile = logs.find((f) => readLog(f).some((r) => r.type === 'restore'))!;
  const log = readLog(logFile);
  const record = log.at(-1) as RestoreRecord;
  rewriteLog(logFile, log.slice(0, -1));
  writeFileSync(path.join(store.dir, 'journal.json'), JSON.stringify({ op: 'restore', sessionKey: session, root: ws, startedAt: record.at, tree: cp.tree, record }));
  write(ws, 'b/f.txt', 'b now\n');
  write(ws, 'c/f.txt', 'c now\n');
  return { store, record, cpId: cp.id };
}
