/**
 * Cross-process locks on the home folder (proper-lockfile): a lock is a directory `<name>.lock` created atomically
 * (mkdir), whose mtime the holder refreshes every `stale / 2` ms. A holder that crashed or was killed stops
 * refreshing, so after `stale` ms (10 s) another process takes the lock over — no manual cleanup is ever needed.
 *
 * Taking a stale lock over is serialised here, not left to proper-lockfile. Its own takeover (stat: stale → rmdir →
 * mkdir) is not atomic: when several processes wait on a lock whose holder was killed, one of them can remove the
 * lock another has just taken (both saw the dead holder's stale lock), and then both hold it — two writers of the
 * session index, or an ENOENT that fails the run outright. So proper-lockfile is told a lock never goes stale, and
 * a waiter that finds it stale breaks it under a second lock, `<name>.lock.break` (a plain mkdir), after checking
 * again under that lock that it is still stale. Only one waiter breaks at a time, and a lock taken after the break
 * is never mistaken for the dead one. A breaker is held for two file operations; one left by a waiter killed in
 * between is itself stale after `stale` ms and removed.
 *
 * `acquireFileLock` waits as long as it must (a session run may hold its lock for minutes), polling every
 * `pollMs` and giving up only when its signal aborts.
 */
import { mkdir, rmdir, stat } from 'node:fs/promises';
import lockfile from 'proper-lockfile';

export const LOCK_STALE_MS = 10_000;

const MIN_STALE_MS = 2000;
/** What proper-lockfile is told: its own stale takeover never runs (see above). */
const NEVER_STALE = Number.MAX_SAFE_INTEGER;

export interface FileLockOptions {
  signal?: AbortSignal;
  /** Poll interval while another holder has the lock (default 100 ms). */
  pollMs?: number;
  stale?: number;
  onCompromised?: (err: Error) => void;
}

export type ReleaseLock = () => Promise<void>;

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

const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException).code === code;

/** mtime in ms, or undefined when the path is gone. */
async function mtimeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
}

async function removeDir(path: string): Promise<void> {
  await rmdir(path).catch((err: unknown) => {
    if (!isCode(err, 'ENOENT')) throw err;
  });
}

/**
 * Removes the lock `lockPath` if its holder stopped refreshing it `stale` ms ago, serialised with every other
 * waiter through `<lockPath>.break`. Returns true when the lock is gone (try to take it now), false when it is held
 * (or another waiter is breaking it).
 */
export async function breakStaleLock(lockPath: string, stale: number = LOCK_STALE_MS): Promise<boolean> {
  const seen = await mtimeOf(lockPath);
  if (seen === undefined) return true;
  if (seen >= Date.now() - stale) return false;
  const breaker = `${lockPath}.break`;
  try {
    await mkdir(breaker);
  } catch (err) {
    if (!isCode(err, 'EEXIST')) throw err;
    // Another waiter is breaking it now. A breaker whose waiter was killed mid-break is cleared once stale.
    const since = await mtimeOf(breaker);
    if (since !== undefined && since < Date.now() - stale) await removeDir(breaker);
    return false;
  }
  try {
    // Checked again under the breaker: a waiter that broke the lock before us may hold a fresh one by now.
    const now = await mtimeOf(lockPath);
    if (now === undefined) return true;
    if (now >= Date.now() - stale) return false;
    await removeDir(lockPath);
    return true;
  } finally {
    await removeDir(breaker);
  }
}

/** Takes the lock `lockPath` (a directory path ending in `.lock`); resolves with its release function. */
export async function acquireFileLock(lockPath: string, opts: FileLockOptions = {}): Promise<ReleaseLock> {
  // The holder refreshes every stale / 2 ms, and never more often than once a second (proper-lockfile's floor).
  const stale = Math.max(opts.stale ?? LOCK_STALE_MS, MIN_STALE_MS);
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('The lock wait was stopped.');
    try {
      const release = await lockfile.lock(lockPath, {
        lockfilePath: lockPath,
        realpath: false,
        stale: NEVER_STALE,
        update: stale / 2,
        retries: 0,
        onCompromised:
          opts.onCompromised ??
          ((err) => console.error(`[agentdesk] lock ${lockPath} was taken over: ${err.message}`)),
      });
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await release().catch(() => undefined); // already released or compromised: nothing left to undo
      };
    } catch (err) {
      if (!isCode(err, 'ELOCKED')) throw err;
    }
    if (await breakStaleLock(lockPath, stale)) continue;
    await sleep(opts.pollMs ?? 100, opts.signal);
  }
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
