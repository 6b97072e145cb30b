/**
 * Cross-process locks on the home folder (session runs, the session index, the auth state). A lock is a file
 * `<name>.lock` holding its owner record (lock-owner.ts: PID, host, process start time, a token), created
 * atomically with its content (written to a temp file, then hard-linked into place: `link` fails when the lock
 * exists). The holder refreshes the file's mtime every `stale / 2` ms.
 *
 * A waiter that finds the lock held takes it over when the holder is gone:
 * - at once when the holder is a dead process on this machine (no such PID, or the PID now belongs to a process
 *   that started at another time) — after a SIGKILL the next run starts without waiting;
 * - after `stale` ms without a refresh (10 s) when the holder cannot be judged from here (another host sharing the
 *   folder, another PID namespace, a lock without an owner record);
 * - never while its holder is known to be alive, even if it is late refreshing (a suspended process is not dead).
 *
 * Taking a lock over is serialised: several waiters may find the same dead lock at once, and a take-over that is
 * not atomic (look → remove → create) would let one remove the lock another has just taken. So a waiter breaks a
 * lock only under a second lock, `<name>.lock.break` (a plain mkdir), after checking again under it that the lock
 * is still the one it judged abandoned (same file, same owner token). A breaker left by a waiter killed mid-break
 * is itself removed after `stale` ms.
 *
 * `acquireFileLock` waits as long as it must (a session run may hold its lock for minutes), polling every
 * `pollMs` and giving up only when its signal aborts.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm, rmdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { holderState, ownerRecord, parseOwner, type LockOwner } from './lock-owner.js';

export const LOCK_STALE_MS = 10_000;

const MIN_STALE_MS = 2000;

export interface FileLockOptions {
  signal?: AbortSignal;
  /** Poll interval while another holder has the lock (default 100 ms). */
  pollMs?: number;
  stale?: number;
  onCompromised?: (err: Error) => void;
}

/** Releases a held lock; `token` is the one in its owner record (the holder recognises requests to it by it). */
export type ReleaseLock = (() => Promise<void>) & { readonly token: string };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

const isCode = (err: unknown, ...codes: string[]) => codes.includes((err as NodeJS.ErrnoException).code ?? '');

/** What a waiter sees of a lock: when it was last refreshed, which file it is, and its owner (if readable). */
export interface LockView {
  mtimeMs: number;
  ino: number;
  owner?: LockOwner;
}

/** The lock at `lockPath`, or undefined when there is none. A legacy lock directory has no owner. */
export async function inspectLock(lockPath: string): Promise<LockView | undefined> {
  let s;
  try {
    s = await stat(lockPath);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
  let owner: LockOwner | undefined;
  if (s.isFile()) {
    try {
      owner = parseOwner(await readFile(lockPath, 'utf8'));
    } catch (err) {
      if (isCode(err, 'ENOENT')) return undefined;
    }
  }
  return { mtimeMs: s.mtimeMs, ino: s.ino, ...(owner ? { owner } : {}) };
}

/** The holder of the lock, when the lock exists and records one. */
export async function lockOwner(lockPath: string): Promise<LockOwner | undefined> {
  return (await inspectLock(lockPath))?.owner;
}

/**
 * Abandoned: its holder is a dead process on this machine, or one that cannot be judged from here and has not
 * refreshed the lock for `stale` ms. A holder known to be alive keeps its lock even when it is late refreshing it
 * (a suspended or busy process is not dead).
 */
function abandoned(v: LockView, stale: number): boolean {
  const holder = holderState(v.owner);
  return holder === 'dead' || (holder === 'unknown' && v.mtimeMs < Date.now() - stale);
}

const removeLock = (lockPath: string) => rm(lockPath, { recursive: true, force: true });

/**
 * Removes the lock `lockPath` if it is abandoned, serialised with every other waiter through `<lockPath>.break`.
 * Returns true when the lock is gone (try to take it now), false when it is held (or another waiter is breaking it).
 */
export async function breakStaleLock(lockPath: string, stale: number = LOCK_STALE_MS): Promise<boolean> {
  const seen = await inspectLock(lockPath);
  if (seen === undefined) return true;
  if (!abandoned(seen, stale)) return false;
  const breaker = `${lockPath}.break`;
  try {
    await mkdir(breaker);
  } catch (err) {
    if (!isCode(err, 'EEXIST')) throw err;
    // Another waiter is breaking it now. A breaker whose waiter was killed mid-break is cleared once stale.
    const since = await stat(breaker).then((s) => s.mtimeMs, () => undefined);
    if (since !== undefined && since < Date.now() - stale) await rmdir(breaker).catch(() => undefined);
    return false;
  }
  try {
    // Checked again under the breaker: a waiter that broke the lock before us may hold a fresh one by now.
    const now = await inspectLock(lockPath);
    if (now === undefined) return true;
    if (now.ino !== seen.ino || now.owner?.token !== seen.owner?.token || !abandoned(now, stale)) return false;
    await removeLock(lockPath);
    return true;
  } finally {
    await rmdir(breaker).catch(() => undefined);
  }
}

/** Creates the lock with its owner record in one step; false when it exists. */
async function create(lockPath: string, owner: LockOwner): Promise<boolean> {
  const text = JSON.stringify(owner);
  const tmp = `${lockPath}.${owner.token}.tmp`;
  await writeFile(tmp, text);
  try {
    await link(tmp, lockPath);
    return true;
  } catch (err) {
    if (isCode(err, 'EEXIST')) return false;
    if (!isCode(err, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK')) throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  // A file system without hard links: exclusive create, then the record (a reader of the empty file waits for staleness).
  let fh;
  try {
    fh = await open(lockPath, 'wx');
  } catch (err) {
    if (isCode(err, 'EEXIST')) return false;
    throw err;
  }
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
  return true;
}

/** Takes the lock `lockPath` (a file path ending in `.lock`); resolves with its release function. */
export async function acquireFileLock(lockPath: string, opts: FileLockOptions = {}): Promise<ReleaseLock> {
  const stale = Math.max(opts.stale ?? LOCK_STALE_MS, MIN_STALE_MS);
  const onCompromised = opts.onCompromised ?? ((err) => console.error(`[agentdesk] lock ${lockPath} was taken over: ${err.message}`));
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('The lock wait was stopped.');
    const owner = ownerRecord(randomBytes(8).toString('hex'), Date.now());
    if (await create(lockPath, owner)) return hold(lockPath, owner.token, stale, onCompromised);
    if (await breakStaleLock(lockPath, stale)) continue;
    await sleep(opts.pollMs ?? 100, opts.signal);
  }
}

/** Keeps a taken lock fresh until it is released; notices when another process took it over. */
function hold(lockPath: string, token: string, stale: number, onCompromised: (err: Error) => void): ReleaseLock {
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  const ours = async () => (await lockOwner(lockPath).catch(() => undefined))?.token === token;
  const refresh = async () => {
    timer = undefined;
    if (released) return;
    if (!(await ours())) {
      if (!released) onCompromised(new Error('another process removed or replaced it'));
      released = true;
      return;
    }
    const now = new Date();
    await utimes(lockPath, now, now).catch(() => undefined);
    if (!released) schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void refresh(), stale / 2);
    timer.unref(); // a held lock never keeps the process alive; a dead holder is recognised by its PID
  };
  schedule();
  const release = async () => {
    if (released) return;
    released = true;
    if (timer) clearTimeout(timer);
    if (await ours()) await unlink(lockPath).catch(() => undefined);
  };
  return Object.assign(release, { token });
}

/** Runs `fn` while holding the lock. */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  const release = await acquireFileLock(lockPath, { pollMs: 10, ...opts });
  try {
    return await fn();
  } finally {
    await release();
  }
}
