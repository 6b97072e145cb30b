/**
 * Cross-process locks (main/sessions/file-lock.ts) under real processes: 4 `node` processes (on the TypeScript
 * source) take one lock over and over, while this process keeps leaving killed holders' locks behind, planted
 * whenever the lock is free — alternately what a SIGKILLed CLI leaves (a fresh lock file naming a process that no
 * longer exists: taken over at once) and a stale lock without an owner record (taken over by staleness). Every
 * waiter then finds a dead lock at about the same moment. Mutual exclusion must hold throughout: no process ever
 * enters while another is inside, and no take-over fails.
 */
import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readdir, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const WORKERS = 4;
const RUN_MS = 3000;

describe('file locks across real processes', () => {
  it(`${WORKERS} processes and a stream of dead holders' locks: one holder at a time, every take-over succeeds`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-locks-'));
    const lock = join(dir, 'x.lock');
    const url = pathToFileURL(join(import.meta.dirname, '../../main/sessions/file-lock.ts')).href;
    // Each worker: take the lock, mark "inside" with an exclusive create (fails if another holder is inside), hold it
    // briefly, leave, release. Counts entries, overlaps and failed acquisitions; prints them as JSON.
    const code = `
      const { open, unlink } = await import('node:fs/promises');
      const { acquireFileLock } = await import(${JSON.stringify(url)});
      const end = Date.now() + ${RUN_MS};
      const inside = ${JSON.stringify(join(dir, 'inside'))};
      const counts = { entered: 0, overlaps: 0, errors: [] };
      while (Date.now() < end) {
        let release;
        try {
          release = await acquireFileLock(${JSON.stringify(lock)}, { stale: 2000, pollMs: 5, onCompromised: () => {} });
        } catch (err) {
          counts.errors.push(err.message);
          continue;
        }
        try {
          const fh = await open(inside, 'wx');
          counts.entered++;
          await new Promise((r) => setTimeout(r, 1));
          await fh.close();
          await unlink(inside);
        } catch {
          counts.overlaps++;
        }
        await release();
      }
      console.log(JSON.stringify(counts));`;
    const workers = Array.from({ length: WORKERS }, () =>
      execa('node', ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: join(import.meta.dirname, '../..') }),
    );
    // Killed holders: whenever the lock is free, either a fresh lock of a dead process (its owner record copied from a
    // real lock, with the PID of a process that has exited), or a lock directory without a record that stopped being
    // refreshed a minute ago.
    const { ownerRecord } = await import('../../main/sessions/lock-owner.js');
    const deadPid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    const deadOwner = join(dir, 'dead-owner');
    await writeFile(deadOwner, JSON.stringify({ ...ownerRecord('dead', Date.now()), pid: deadPid }));
    let planted = 0;
    let running = true;
    void Promise.allSettled(workers).then(() => (running = false));
    const old = new Date(Date.now() - 60_000);
    while (running) {
      try {
        if (planted % 2 === 0) await link(deadOwner, lock);
        else {
          await mkdir(lock);
          await utimes(lock, old, old);
        }
        planted++;
      } catch {
        // held by a worker right now
      }
      await new Promise((r) => setTimeout(r, 3));
    }
    await unlink(deadOwner);
    const results = (await Promise.all(workers)).map((r) => JSON.parse(r.stdout) as { entered: number; overlaps: number; errors: string[] });
    expect(planted).toBeGreaterThan(10); // the take-over path really ran, many times
    for (const r of results) {
      expect(r.errors).toEqual([]);
      expect(r.overlaps).toBe(0);
      expect(r.entered).toBeGreaterThan(0);
    }
    expect((await readdir(dir)).filter((n) => n.endsWith('.break') || n.endsWith('.tmp'))).toEqual([]);
  }, 60_000);
});
