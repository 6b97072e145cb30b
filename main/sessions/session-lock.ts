/**
 * E3 across processes: session runs are serial for every process sharing the home folder (the app and any number
 * of `agentdesk agent` commands). A run holds `<sessions>/locks/<hash of the session key>.lock` from before it
 * loads the history until its last transcript write, so a second process loads the history only after the first
 * run's turn is complete. The lock names its holder (PID and process start time): a holder that was killed loses
 * it at once to the next run, on this machine; one that cannot be judged (another host) after 10 s (file-lock.ts).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireFileLock, type ReleaseLock } from './file-lock.js';

export function sessionLockPath(sessionsDir: string, sessionKey: string): string {
  const hash = createHash('sha256').update(sessionKey).digest('hex').slice(0, 32);
  return join(sessionsDir, 'locks', `${hash}.lock`);
}

/** The Lanes `sessionLock` stage for one sessions folder. */
export function sessionRunLock(sessionsDir: string) {
  return async (sessionKey: string, signal: AbortSignal | undefined): Promise<ReleaseLock> => {
    await mkdir(join(sessionsDir, 'locks'), { recursive: true });
    return acquireFileLock(sessionLockPath(sessionsDir, sessionKey), { signal, pollMs: 100 });
  };
}
