/**
 * X2 through the built CLI: a restore killed part-way that can, at the next start, neither be finished nor put back
 * (folders made unwritable since: immutable as root, read-only for a plain user). It used to stay in the store's
 * journal and fail every store operation of every session (`checkpoints list` included); now the next command says
 * in one line what state the folder is in and what to do, the store works on, and `checkpoints undo` — once the
 * folders are writable — puts the folder back exactly as it was before that restore.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../main/checkpoints/store.js';
import { AS_NOBODY, canRunAsNobody, NOBODY } from '../support/as-nobody.js';
import { cleanEnv, ensureBuilt, ROOT, runCli } from '../support/cli.js';
import { canImmutable, chattr, HALF, killedRestore as killed, NOW, readFolder as read } from '../support/killed-restore.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('clistuck');
const locked: string[] = [];
afterEach(() => {
  for (const p of locked.splice(0)) chattr('-i', p);
});

/** A home (`parent`/home) whose store holds a killed restore of `parent`/ws, and a second session of `parent`/other. */
async function killedRestore(parent: string) {
  const home = path.join(parent, 'home');
  const ws = path.join(parent, 'ws');
  const other = path.join(parent, 'other');
  for (const d of [home, ws, other]) mkdirSync(d, { recursive: true });
  const { store } = await killed(home, ws, other);
  expect(read(ws)).toEqual(HALF);
  return { home, ws, store };
}

/** The steps and what each prints, as the person sees them; `unblock` makes the folders writable again. */
async function stuckThenUndo(o: { home: string; ws: string; store: CheckpointStore; wrap?: string[]; bin?: string; unblock(): void }) {
  const cli = (args: string[]) =>
    runCli([...args, '--home', o.home], { env: cleanEnv(), timeoutMs: 60_000, ...(o.wrap ? { wrap: o.wrap, cwd: '/' } : {}), ...(o.bin ? { bin: o.bin } : {}) });
  // The next command: one line on what state the folder is in and what to do; the command itself works.
  const list = await cli(['checkpoints', 'list', '--session', 's']);
  expect(list.exitCode, list.stderr).toBe(0);
  expect(list.stderr.trim().split('\n')).toHaveLength(1);
  expect(list.stderr).toMatch(/^agentdesk: An interrupted restore of session "s" could neither be finished \(b\/f\.txt: (permission denied|operation not permitted)\) nor put back \(a\/f\.txt: (permission denied|operation not permitted)\): .*\/ws is partly restored \(.*\)\. Nothing is lost: once that is fixed, `agentdesk checkpoints undo --session s` \(Undo restore in the app\) puts it back as it was before\.$/);
  expect(list.stdout.trim().split('\n')).toHaveLength(1);
  expect(read(o.ws)).toEqual(HALF);
  expect(existsSync(path.join(o.store.dir, 'journal.json'))).toBe(false);
  // Said again (one line) at every list of that session until it is undone; another session is not concerned.
  const again = await cli(['checkpoints', 'list', '--session', 's']);
  expect(again.exitCode).toBe(0);
  expect(again.stderr).toMatch(/^agentdesk: The last restore of session "s" could neither be finished nor put back \(.*\): .*\/ws is partly restored\. Once that is fixed, `agentdesk checkpoints undo --session s` \(Undo restore in the app\) puts it back as it was before\.$/);
  const other = await cli(['checkpoints', 'list', '--session', 'other', '--json']);
  expect(other.exitCode, other.stderr).toBe(0);
  expect(other.stderr).toBe('');
  expect(JSON.parse(other.stdout)).toHaveLength(1);
  // An undo while the cause is still there: refused in one line, nothing changed.
  const early = await cli(['checkpoints', 'undo', '--session', 's']);
  expect(early.exitCode).toBe(1);
  expect(early.stderr).toMatch(/^agentdesk: Could not restore .*: nothing was changed, the folder is as it was before\.$/);
  expect(read(o.ws)).toEqual(HALF);
  // Fixed: the undo puts the folder back exactly as it was before that restore.
  o.unblock();
  const undo = await cli(['checkpoints', 'undo', '--session', 's']);
  expect(undo.exitCode, undo.stderr).toBe(0);
  expect(undo.stdout).toMatch(/^Undid the last restore: /);
  expect(read(o.ws)).toEqual(NOW);
  const after = await cli(['checkpoints', 'list', '--session', 's']);
  expect(after.stderr).toBe('');
}

describe('a killed restore that can neither be finished nor put back at the next start (the built CLI)', () => {
  it.skipIf(!canImmutable)('as root (a/ and b/ made immutable): one line, the store works on, undo puts it back once fixed', async () => {
    await ensureBuilt();
    const k = await killedRestore(tmp('root'));
    for (const d of ['a', 'b']) {
      expect(chattr('+i', path.join(k.ws, d))).toBe(true);
      locked.push(path.join(k.ws, d));
    }
    await stuckThenUndo({ ...k, unblock: () => locked.splice(0).forEach((p) => chattr('-i', p)) });
  }, 120_000);

  it.skipIf(!canRunAsNobody)('as a plain user (a/ and b/ made read-only): the same', async () => {
    await ensureBuilt();
    const parent = tmp('nobody');
    chmodSync(parent, 0o755);
    const k = await killedRestore(parent);
    execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, k.home, k.ws, path.join(parent, 'other')]);
    for (const d of ['a', 'b']) chmodSync(path.join(k.ws, d), 0o555);
    // The built CLI must be readable by that user. A clone in a 0700 folder (a home, a fresh temp folder) is not:
    // the CLI is then copied to a folder it can read — bin/, out/, package.json and the packages the bundle leaves
    // external (the production dependencies, as npm lists them).
    let bin: string | undefined;
    let probe = await runCli(['--version'], { wrap: AS_NOBODY, env: cleanEnv(), cwd: '/' });
    if (probe.exitCode !== 0) {
      const copy = tmp('cli-copy');
      const deps = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' })
        .split('\n')
        .map((p) => path.relative(ROOT, p))
        .filter((p) => p.startsWith('node_modules') && p.split('node_modules').length === 2); // top-level packages
      for (const p of ['bin', 'out', 'package.json', ...deps]) cpSync(path.join(ROOT, p), path.join(copy, p), { recursive: true });
      execFileSync('chmod', ['-R', 'a+rX', copy]);
      bin = path.join(copy, 'bin', 'agentdesk.mjs');
      probe = await runCli(['--version'], { wrap: AS_NOBODY, env: cleanEnv(), cwd: '/', bin });
    }
    expect(probe.exitCode, `the CLI must be runnable by uid ${NOBODY}: ${probe.stderr}`).toBe(0);
    await stuckThenUndo({ ...k, wrap: AS_NOBODY, ...(bin ? { bin } : {}), unblock: () => ['a', 'b'].forEach((d) => chmodSync(path.join(k.ws, d), 0o755)) });
  }, 120_000);
});
