/**
 * Cross-process locks (main/sessions/file-lock.ts, lock-owner.ts): a dead holder's lock is taken over at once, a
 * lock whose holder cannot be judged only once it is stale, and one waiter at a time breaks it even when several
 * find it abandoned at the same moment; a live holder's lock is never taken.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireFileLock, breakStaleLock, lockOwner } from '../../main/sessions/file-lock.js';
import { holderState, ownerRecord, processProbe, startTimeOf, type LockOwner, type ProcessProbe } from '../../main/sessions/lock-owner.js';

const STALE = 2000;
const exists = (p: string) => stat(p).then(() => true, () => false);

async function lockIn(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-lock-')));
  return join(dir, 'x.lock');
}

/** The PID of a process that has exited (a SIGKILLed CLI's, as far as its lock is concerned). */
const deadPid = (): number => Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));

/** A lock file as a holder leaves it: its owner record, last refreshed `ageMs` ago. */
async function planted(path: string, ageMs: number, owner?: Partial<LockOwner>): Promise<void> {
  if (owner) await writeFile(path, JSON.stringify({ ...ownerRecord('planted', Date.now()), ...owner }));
  else await mkdir(path); // a lock without a record (what an older build left: a directory)
  const t = new Date(Date.now() - ageMs);
  await utimes(path, t, t);
}

describe('startTimeOf (/proc/<pid>/stat)', () => {
  it.each([
    ['1234 (node) S 1 1234 1234 0 -1 4194560 100 0 0 0 10 2 0 0 20 0 11 0 98765 1000 50', '98765'],
    ['7 (a b) c)) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 555 0 0', '555'], // a command name with spaces and ")"
    ['garbage', undefined],
  ])('%s → %s', (line, start) => expect(startTimeOf(line)).toBe(start));
});

describe('holderState', () => {
  const probe = (over: Partial<ProcessProbe> = {}): ProcessProbe => ({
    platform: 'linux',
    host: 'box',
    self: { pid: 100, start: '500', boot: 'boot-1', pidns: 'pid:[1]' },
    startOf: (pid) => ({ 200: '700', 300: '900' })[pid],
    exists: (pid) => pid === 200 || pid === 300 || pid === 100,
    ...over,
  });
  const owner = (o: Partial<LockOwner>): LockOwner => ({ pid: 200, host: 'box', start: '700', boot: 'boot-1', pidns: 'pid:[1]', token: 't', at: 0, ...o });
  it.each<[string, LockOwner | undefined, ProcessProbe, string]>([
    ['no record', undefined, probe(), 'unknown'],
    ['a live holder', owner({}), probe(), 'alive'],
    ['no process with that PID', owner({ pid: 999 }), probe(), 'dead'],
    ['the PID belongs to a process that started later (reused)', owner({ pid: 300, start: '700' }), probe(), 'dead'],
    ['taken before the last reboot', owner({ boot: 'boot-0' }), probe(), 'dead'],
    ['another host sharing the folder', owner({ host: 'other' }), probe(), 'unknown'],
    ['another PID namespace (a container)', owner({ pidns: 'pid:[2]', pid: 999 }), probe(), 'unknown'],
    ['this process', owner({ pid: 100, start: '500' }), probe(), 'alive'],
    ['a record without a start time, PID alive', owner({ start: undefined }), probe(), 'unknown'],
    ['a PID that exists but /proc is hidden', owner({ pid: 300 }), probe({ startOf: () => undefined }), 'unknown'],
    ['macOS: PID gone', owner({ pid: 999 }), probe({ platform: 'darwin' }), 'dead'],
    ['macOS: PID exists', owner({ pid: 300, start: undefined }), probe({ platform: 'darwin' }), 'alive'],
  ])('%s → %s', (_name, o, p, state) => expect(holderState(o, p)).toBe(state));

  it('this machine: this process is alive, an exited one is dead', () => {
    expect(holderState(ownerRecord('t', 0))).toBe('alive');
    expect(holderState({ ...ownerRecord('t', 0), pid: deadPid() })).toBe('dead');
    expect(processProbe().self.pid).toBe(process.pid);
  });
});

describe('breakStaleLock', () => {
  it.each([
    // name, lock (undefined: none), breaker age (undefined: none), returns, lock left, breaker left
    ['no lock: take it', undefined, undefined, true, false, false],
    ["a live holder's fresh lock stays", { age: 100, owner: {} }, undefined, false, true, false],
    ["a live holder's lock stays even past the stale time (a paused process is not guessed dead)", { age: 60_000, owner: {} }, undefined, false, true, false],
    ["a dead holder's fresh lock is removed at once", { age: 100, owner: { pid: 'dead' } }, undefined, true, false, false],
    ["another host's fresh lock stays", { age: 100, owner: { host: 'elsewhere' } }, undefined, false, true, false],
    ["another host's stale lock is removed", { age: 60_000, owner: { host: 'elsewhere' } }, undefined, true, false, false],
    ['a stale lock without a record (an older build) is removed', { age: 60_000 }, undefined, true, false, false],
    ['a fresh lock without a record stays', { age: 100 }, undefined, false, true, false],
    ['another waiter is breaking it: left to that waiter', { age: 100, owner: { pid: 'dead' } }, 100, false, true, true],
    ['a breaker left by a waiter killed mid-break is cleared; the lock waits for the next poll', { age: 60_000 }, 60_000, false, true, false],
  ] as const)('%s', async (_name, lock, breakerAge, returns, lockLeft, breakerLeft) => {
    const path = await lockIn();
    if (lock) {
      const owner = 'owner' in lock ? { ...lock.owner, ...('pid' in lock.owner ? { pid: deadPid() } : {}) } : undefined;
      await planted(path, lock.age, owner as Partial<LockOwner> | undefined);
    }
    if (breakerAge !== undefined) await planted(`${path}.break`, breakerAge);
    expect(await breakStaleLock(path, STALE)).toBe(returns);
    expect(await exists(path)).toBe(lockLeft);
    expect(await exists(`${path}.break`)).toBe(breakerLeft);
  });
});

describe('acquireFileLock', () => {
  it('records its holder in the lock and removes it on release', async () => {
    const lock = await lockIn();
    const release = await acquireFileLock(lock, { stale: STALE, pollMs: 10 });
    const owner = await lockOwner(lock);
    expect(owner?.pid).toBe(process.pid);
    expect(holderState(owner)).toBe('alive');
    await release();
    expect(await exists(lock)).toBe(false);
  });

  it("takes a dead holder's lock over at once (no wait for staleness)", async () => {
    const lock = await lockIn();
    await planted(lock, 0, { pid: deadPid() });
    const t0 = Date.now();
    const release = await acquireFileLock(lock, { stale: 10_000, pollMs: 100 });
    expect(Date.now() - t0).toBeLessThan(500);
    expect((await lockOwner(lock))?.pid).toBe(process.pid);
    await release();
  });

  it("takes a stale lock of a holder it cannot judge, once stale", async () => {
    const lock = await lockIn();
    await planted(lock, 60_000, { host: 'elsewhere' });
    const release = await acquireFileLock(lock, { stale: STALE, pollMs: 10 });
    expect(Date.now() - (await stat(lock)).mtimeMs).toBeLessThan(STALE);
    await release();
  });

  it("a waiter that saw the dead holder's lock never removes the lock another waiter has taken since", async () => {
    // The race behind an earlier crash-safety failure: two processes wait on the lock of a killed CLI; both see it
    // abandoned; one breaks it and takes a fresh lock; the other, acting on what it saw, must not remove that one.
    const lock = await lockIn();
    await planted(lock, 0, { pid: deadPid(), token: 'dead' });
    // The other waiter (in between this waiter's look and its break): breaks the dead lock and holds a fresh one.
    const other = await acquireFileLock(lock, { stale: STALE, pollMs: 10 });
    const otherOwner = await readFile(lock, 'utf8');
    try {
      // What this waiter does next with what it saw (the dead lock) is the re-check under the breaker.
      expect(await breakStaleLock(lock, STALE)).toBe(false);
      const waited = acquireFileLock(lock, { stale: STALE, pollMs: 10, signal: AbortSignal.timeout(300) });
      await expect(waited).rejects.toThrow();
      expect(await readFile(lock, 'utf8')).toBe(otherOwner);
    } finally {
      await other();
    }
  });

  it('a live holder refreshes its lock, so waiters never take it over (even past the stale time)', async () => {
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

  it('a holder whose lock was taken over is told, and its release leaves the new lock alone', async () => {
    const lock = await lockIn();
    let compromised: Error | undefined;
    const release = await acquireFileLock(lock, { stale: STALE, pollMs: 10, onCompromised: (e) => (compromised = e) });
    await writeFile(lock, JSON.stringify(ownerRecord('someone-else', Date.now())));
    await new Promise((r) => setTimeout(r, STALE / 2 + 300));
    expect(compromised?.message).toMatch(/another process/);
    await release();
    expect((await lockOwner(lock))?.token).toBe('someone-else');
  });
});
