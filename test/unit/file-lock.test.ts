/**
 * Cross-process locks (main/sessions/file-lock.ts): a dead holder's lock is taken over once, by one waiter, even
 * when several waiters find it stale at the same moment; a live holder's lock is never taken.
 */
import { mkdirSync, rmdirSync, statSync, type Stats } from 'node:fs';
import { mkdir, mkdtemp, realpath, stat, utimes } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireFileLock, breakStaleLock } from '../../main/sessions/file-lock.js';

const STALE = 2000;
const exists = (p: string) => stat(p).then(() => true, () => false);

async function lockIn(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-lock-')));
  return join(dir, 'x.lock');
}

/** A lock directory whose holder stopped refreshing it `ageMs` ago (a killed process's lock). */
async function planted(path: string, ageMs: number): Promise<void> {
  await mkdir(path);
  const t = new Date(Date.now() - ageMs);
  await utimes(path, t, t);
}

describe('breakStaleLock', () => {
  it.each([
    // name, lock age (undefined: no lock), breaker age (undefined: none), returns, lock left, breaker left
    ['no lock: take it', undefined, undefined, true, false, false],
    ["a live holder's lock stays", 100, undefined, false, true, false],
    ["a dead holder's lock is removed", 60_000, undefined, true, false, false],
    ['another waiter is breaking it: left to that waiter', 60_000, 100, false, true, true],
    ['a breaker left by a waiter killed mid-break is cleared; the lock waits for the next poll', 60_000, 60_000, false, true, false],
  ])('%s', async (_name, lockAge, breakerAge, returns, lockLeft, breakerLeft) => {
    const lock = await lockIn();
    if (lockAge !== undefined) await planted(lock, lockAge);
    if (breakerAge !== undefined) await planted(`${lock}.break`, breakerAge);
    expect(await breakStaleLock(lock, STALE)).toBe(returns);
    expect(await exists(lock)).toBe(lockLeft);
    expect(await exists(`${lock}.break`)).toBe(breakerLeft);
  });
});

describe('acquireFileLock', () => {
  it("takes a dead holder's lock over", async () => {
    const lock = await lockIn();
    await planted(lock, 60_000);
    const release = await acquireFileLock(lock, { stale: STALE, pollMs: 10 });
    expect(Date.now() - (await stat(lock)).mtimeMs).toBeLessThan(STALE);
    await release();
    expect(await exists(lock)).toBe(false);
  });

  it('a waiter that saw the dead holder\'s lock never removes the lock another waiter has taken since', async () => {
    // The race behind the crash-safety failure with seed 1961052392: two processes wait on the session index lock of a
    // killed CLI; both see it stale; one breaks it and takes a fresh lock; the other, acting on what it saw, removed
    // that fresh lock and took one too (two index writers), or failed with ENOENT when its own lock vanished.
    // Here the other process is played by this hook on the fs proper-lockfile uses (graceful-fs): right after this
    // waiter's first look at the dead lock, the other process breaks it and takes the lock.
    const lock = await lockIn();
    await planted(lock, 60_000);
    const gracefulFs = createRequire(import.meta.url)('graceful-fs') as { stat: (...args: unknown[]) => void };
    const realStat = gracefulFs.stat;
    let otherTook: Stats | undefined;
    gracefulFs.stat = (path: unknown, ...rest: unknown[]) => {
      const done = rest.at(-1) as (err: Error | null, s?: Stats) => void;
      if (otherTook || path !== lock || rest.length !== 1) return realStat(path, ...rest);
      realStat(path, (err: Error | null, seen?: Stats) => {
        rmdirSync(lock); // the other waiter breaks the dead lock…
        mkdirSync(lock); // …and holds a fresh one
        otherTook = statSync(lock);
        done(err, seen); // this waiter goes on with what it saw: the dead lock
      });
    };
    try {
      const waited = acquireFileLock(lock, { stale: STALE, pollMs: 10, signal: AbortSignal.timeout(400) });
      await expect(waited).rejects.toThrow(); // still waiting when the signal fires: the other waiter holds it
    } finally {
      gracefulFs.stat = realStat;
    }
    expect(otherTook).toBeDefined();
    expect(statSync(lock).ino).toBe(otherTook!.ino); // the other waiter's lock is untouched
  });

  it("a live holder refreshes its lock, so waiters never take it over (even past the stale time)", async () => {
    const lock = await lockIn();
    const release = await acquireFileLock(lock, { stale: STALE, pollMs: 10 });
    try {
      const waiter = acquireFileLock(lock, { stale: STALE, pollMs: 50, signal: AbortSignal.timeout(STALE + 800) });
      await expect(waiter).rejects.toThrow();
      expect(Date.now() - (await stat(lock)).mtimeMs).toBeLessThan(STALE);
    } finally {
      await release();
    }
  });
});
