/**
 * Cross-process locks on the home folder (proper-lockfile): a lock is a directory `<name>.lock` created atomically
 * (mkdir), whose mtime the holder refreshes every `stale / 2` ms. A holder that crashed or was killed stops
 * refreshing, so after `stale` ms (10 s) another process takes the lock over — no manual cleanup is ever needed.
 *
 * `acquireFileLock` waits as long as it must (a session run may hold its lock for minutes), polling every
 * `pollMs` and giving up only when its signal aborts.
 */
import lockfile from 'proper-lockfile';

export const LOCK_STALE_MS = 10_000;

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

/** Takes the lock `lockPath` (a directory path ending in `.lock`); resolves with its release function. */
export async function acquireFileLock(lockPath: string, opts: FileLockOptions = {}): Promise<ReleaseLock> {
  const stale = opts.stale ?? LOCK_STALE_MS;
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('The lock wait was stopped.');
    try {
      const release = await lockfile.lock(lockPath, {
        lockfilePath: lockPath,
        realpath: false,
        stale,
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
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    }
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
