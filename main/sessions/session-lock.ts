/**
 * E3 across processes: session runs are serial for every process sharing the home folder (the app and any number
 * of `agentdesk agent` commands). A run holds `<sessions>/locks/<hash of the session key>.lock` from before it
 * loads the history until its last transcript write, so a second process loads the history only after the first
 * run's turn is complete. The lock names its holder (PID and process start time): a holder that was killed loses
 * it at once to the next run, on this machine; one that cannot be judged (another host) after 10 s (file-lock.ts).
 *
 * `/stop` across processes (E22): the session's run may be running in another process (the app, another CLI). The
 * stopper writes `<lock>.stop` naming the holder's lock token; the holder checks for it every 200 ms while it holds
 * the lock, removes it and stops its runs of that session. A request addressed to an earlier holder (a stale token)
 * is removed by the next holder unread, so it can never stop a later run.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireFileLock, lockOwner, type ReleaseLock } from './file-lock.js';
import { holderState } from './lock-owner.js';

/** How often a lock holder looks for a stop request. */
export const STOP_POLL_MS = 200;

export function sessionLockPath(sessionsDir: string, sessionKey: string): string {
  const hash = createHash('sha256').update(sessionKey).digest('hex').slice(0, 32);
  return join(sessionsDir, 'locks', `${hash}.lock`);
}

const stopPath = (lockPath: string) => `${lockPath}.stop`;

/** The Lanes `sessionLock` stage for one sessions folder; `onStop` is called when another process asks for a stop. */
export function sessionRunLock(sessionsDir: string) {
  return async (sessionKey: string, signal: AbortSignal | undefined, onStop?: () => void): Promise<() => Promise<void>> => {
    await mkdir(join(sessionsDir, 'locks'), { recursive: true });
    const lockPath = sessionLockPath(sessionsDir, sessionKey);
    const release = await acquireFileLock(lockPath, { signal, pollMs: 100 });
    const unwatch = onStop ? watchStopRequests(lockPath, release, onStop) : () => {};
    return async () => {
      unwatch();
      await release();
    };
  };
}

/** Polls for a stop request addressed to the holder of `release`; returns the function that stops polling. */
function watchStopRequests(lockPath: string, release: ReleaseLock, onStop: () => void): () => void {
  const file = stopPath(lockPath);
  let busy = false;
  const check = async () => {
    if (busy) return;
    busy = true;
    try {
      const request = JSON.parse(await readFile(file, 'utf8')) as { token?: unknown };
      await unlink(file).catch(() => undefined);
      if (request.token === release.token) onStop();
    } catch {
      // no request (or a half-written one: read again next time)
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), STOP_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export type StopRequestOutcome =
  /** The holder took the request (and, within the wait, released the session). */
  | { status: 'stopped'; pid: number }
  /** No live run holds the session. */
  | { status: 'none' }
  /** A holder exists but did not take the request in time. */
  | { status: 'no_answer'; pid: number };

/** Asks the process holding `sessionKey`'s run lock to stop its run; waits until it did (at most `timeoutMs`). */
export async function requestSessionStop(sessionsDir: string, sessionKey: string, timeoutMs = 5_000): Promise<StopRequestOutcome> {
  const lockPath = sessionLockPath(sessionsDir, sessionKey);
  const owner = await lockOwner(lockPath).catch(() => undefined);
  if (!owner || holderState(owner) === 'dead') return { status: 'none' };
  const file = stopPath(lockPath);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ token: owner.token, at: Date.now() }));
  await rename(tmp, file);
  const end = Date.now() + timeoutMs;
  let taken = false;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 25));
    const now = await lockOwner(lockPath).catch(() => undefined);
    if (now?.token !== owner.token) {
      await unlink(file).catch(() => undefined); // ended before it read the request: nothing is left to stop
      return { status: 'stopped', pid: owner.pid };
    }
    if (!taken) taken = await readFile(file).then(() => false, () => true);
  }
  if (taken) return { status: 'stopped', pid: owner.pid }; // taken, still finishing its last write
  await unlink(file).catch(() => undefined);
  return { status: 'no_answer', pid: owner.pid };
}
