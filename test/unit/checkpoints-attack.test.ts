/**
 * X2 checkpoints attacked, beyond test/unit/checkpoints-redteam.test.ts: the store reached through a symlink into
 * the workspace, restores over what a checkpoint did not capture (ignored by .gitignore, over the size cap), and a
 * restore that cannot finish (a folder made unwritable) — on the real file system, through CheckpointStore.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ObjectIndex, ObjectReader, sha256 } from '../../main/checkpoints/objects.js';
import { CheckpointService } from '../../main/checkpoints/service.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { sessionRunLock } from '../../main/sessions/session-lock.js';
import { SessionStore } from '../../main/sessions/store.js';
import { ROOT } from '../support/cli.js';
import { bundleForNobody, canRunAsNobody, nobodyFolder, nodeAsNobody } from '../support/as-nobody.js';
import { mkfifoSync } from '../support/mkfifo.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpat');
const realRead = ObjectReader.prototype.read;
const write = (root: string, rel: string, text: string | Buffer) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};

describe('the store inside the workspace', () => {
  it('a data folder given through a symlink into the workspace is never captured, and a restore leaves the store whole', async () => {
    // `--home /tmp/proj/.agentdesk --workspace /tmp/proj` on macOS (/tmp is a link to /private/tmp), or a data
    // folder in a dotfiles repository through ~/.config: the workspace is a real path, the data folder is not.
    const ws = tmp('ws');
    mkdirSync(path.join(ws, '.agentdesk'));
    const home = path.join(tmp('link'), 'home');
    symlinkSync(path.join(ws, '.agentdesk'), home);
    // What openCheckpoints passes: the store in the data folder, the data folder excluded.
    const store = new CheckpointStore(CheckpointStore.dirIn(home), { racyMs: 0, exclude: [home], onNotice: () => {} });
    write(ws, 'a.txt', 'a\n');
    const first = await store.snapshot({ sessionKey: 's', root: ws, label: 'first' });
    write(ws, 'a.txt', 'changed\n');
    const second = await store.snapshot({ sessionKey: 's', root: ws, label: 'second' });
    expect(store.loadTree(second.tree).entries.map((e) => e.p)).toEqual(['a.txt']);
    await store.restore({ sessionKey: 's', id: first.id, files: true });
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('a\n');
    // The store still knows both checkpoints and can go back to the second.
    expect(store.list('s').map((c) => c.label)).toEqual(['first', 'second']);
    await store.restore({ sessionKey: 's', id: second.id, files: true });
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
  });
});

/** A store with a small per-file cap (1 000 bytes) so "too large" is cheap to make. */
function smallCapStore() {
  const ws = tmp('ws');
  const store = new CheckpointStore(tmp('home'), {
    racyMs: 0,
    onNotice: () => {},
    settings: () => ({ keep: 100, maxAgeMs: 1e12, maxFileBytes: 1000, maxTotalBytes: 1e9, maxEntries: 1e6 }),
  });
  return { ws, store };
}

const undo = async (store: CheckpointStore, key: string) => {
  const last = store.lastRestore(key)!;
  return store.restore({ sessionKey: key, id: last.before, files: true, undoOf: last.id });
};

describe('a restore and what the checkpoint of the folder now does not hold', () => {
  const kept = (ws: string) => readdirSync(ws).filter((n) => n.includes('.agentdesk-kept-'));

  it('a file ignored now (edited since) where the checkpoint has it: kept aside, not written over — and the undo puts it back', async () => {
    const { ws, store } = smallCapStore();
    write(ws, 'config.local', 'old\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    // Since then: the file is ignored (by a .gitignore the person wrote — or the agent, to keep its own version of
    // the file through a restore) and holds other content. The restore's own checkpoint of the folder does not hold
    // it: written over, no undo could bring it back.
    write(ws, '.gitignore', 'config.local\n');
    write(ws, 'config.local', 'the person\'s edit\n');
    const service = new CheckpointService({ store, sessions: new SessionStore(tmp('sessions')) });
    const { restore, message } = await service.restore('s', cp.id, 'files');
    expect(readFileSync(path.join(ws, 'config.local'), 'utf8')).toBe('old\n');
    expect(kept(ws)).toHaveLength(1);
    expect(readFileSync(path.join(ws, kept(ws)[0]!), 'utf8')).toBe('the person\'s edit\n');
    expect(store.lastRestore('s')!.keep).toEqual(kept(ws));
    expect(restore.summary).toEqual({ modified: 0, created: 1, deleted: 1 });
    expect(message).toContain(`kept aside (not in a checkpoint): ${kept(ws)[0]}`);
    // The .gitignore is gone, so both are captured now; the undo goes back to a checkpoint that has neither.
    expect((await service.undo('s')).message).toMatch(/^Undid the last restore: /);
    expect(readdirSync(ws).sort()).toEqual(['.gitignore', 'config.local']);
    expect(readFileSync(path.join(ws, 'config.local'), 'utf8')).toBe('the person\'s edit\n');
    // A redo goes back to the folder after the restore (its kept copy included); the file, ignored again, is kept
    // aside again.
    await service.undo('s');
    expect(readFileSync(path.join(ws, 'config.local'), 'utf8')).toBe('old\n');
    expect(new Set(kept(ws).map((n) => readFileSync(path.join(ws, n), 'utf8')))).toEqual(new Set(['the person\'s edit\n']));
  });

  it('a file grown past the size cap where the checkpoint has its small version: kept aside, the small one restored; undo puts it back', async () => {
    const { ws, store } = smallCapStore();
    write(ws, 'sub/data.bin', 'small then\n');
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'sub/data.bin', Buffer.alloc(5000, 'z'));
    write(ws, 'a.txt', 'changed\n');
    const { record } = await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(ws, 'sub/data.bin'), 'utf8')).toBe('small then\n');
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('a\n');
    expect(record.keep).toHaveLength(1);
    expect(readFileSync(path.join(ws, record.keep![0]!)).length).toBe(5000);
    await undo(store, 's');
    expect(readdirSync(path.join(ws, 'sub'))).toEqual(['data.bin']);
    expect(readFileSync(path.join(ws, 'sub/data.bin')).length).toBe(5000);
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  it('a FIFO standing where the restore writes a file: kept aside, never opened (a restore does not block on it)', async () => {
    const { ws, store } = smallCapStore();
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    rmSync(path.join(ws, 'a.txt'));
    mkfifoSync(path.join(ws, 'a.txt'));
    const { record } = await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('a\n');
    expect(record.keep).toHaveLength(1);
    expect(lstatSync(path.join(ws, record.keep![0]!)).isFIFO()).toBe(true);
  });

  it('a file the checkpoint skipped (too large then, small now) is left as it is, not deleted (apply.ts: skipped files are left alone)', async () => {
    const { ws, store } = smallCapStore();
    write(ws, 'data.bin', Buffer.alloc(5000, 'z'));
    write(ws, 'logs/big.log', Buffer.alloc(5000, 'y'));
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    expect(cp.skippedSample).toEqual(['data.bin (too-large)', 'logs/big.log (too-large)']);
    write(ws, 'data.bin', 'now small\n');
    write(ws, 'logs/big.log', 'now small too\n');
    const { record } = await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(ws, 'data.bin'), 'utf8')).toBe('now small\n');
    expect(readFileSync(path.join(ws, 'logs/big.log'), 'utf8')).toBe('now small too\n');
    expect(record.summary).toEqual({ modified: 0, created: 0, deleted: 0 });
  });
});

describe('a restore that cannot finish', () => {
  it('a folder planted where a file is being written (a racing process): the folder is put back as it was before, and the line says so', async () => {
    const ws = tmp('ws');
    const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {} });
    for (const n of ['a', 'b', 'c']) write(ws, `${n}.txt`, `${n} then\n`);
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    for (const n of ['a', 'b', 'c']) write(ws, `${n}.txt`, `${n} now\n`);
    write(ws, 'new.txt', 'created since\n');
    // Reads 1–3 check the contents before anything changes; read 4 is a.txt's write, read 5 b.txt's: just before it,
    // a folder (with a file in it) takes b.txt's place — the rename of the written file over it fails.
    let reads = 0;
    const spy = vi.spyOn(ObjectReader.prototype, 'read').mockImplementation(function (this: ObjectReader, h: string) {
      if (++reads === 5) {
        rmSync(path.join(ws, 'b.txt'));
        write(ws, 'b.txt/planted', 'x');
      }
      return realRead.call(this, h);
    });
    try {
      const err = await store.restore({ sessionKey: 's', id: cp.id, files: true }).catch((e: Error) => e);
      expect(err).toMatchObject({ name: 'RestoreFailedError' });
      expect((err as Error).message).toMatch(/\(b\.txt: a folder is in the way\): nothing was changed, the folder is as it was before\.$/);
    } finally {
      spy.mockRestore();
    }
    // a.txt had been written already: it is put back; the racer's folder (made after the restore's checkpoint of the
    // folder) goes as anything created since a checkpoint does; no temporary file is left.
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'new.txt']);
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('a now\n');
    expect(readFileSync(path.join(ws, 'b.txt'), 'utf8')).toBe('b now\n');
    expect(readFileSync(path.join(ws, 'c.txt'), 'utf8')).toBe('c now\n');
    expect(readFileSync(path.join(ws, 'new.txt'), 'utf8')).toBe('created since\n');
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
    expect(store.lastRestore('s')).toBeUndefined();
    // Nothing is left to finish: the next restore works as usual.
    await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(ws, 'b.txt'), 'utf8')).toBe('b then\n');
  });

  it('a killed restore that cannot be finished at the next start (a folder in the way): put back as it was before, said once', async () => {
    const ws = tmp('ws');
    const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {} });
    for (const n of ['a', 'b', 'c']) write(ws, `${n}.txt`, `${n} then\n`);
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    for (const n of ['a', 'b', 'c']) write(ws, `${n}.txt`, `${n} now\n`);
    write(ws, 'new.txt', 'created since\n');
    // What a restore killed after its journal and its first write leaves: its checkpoint of the folder, the journal,
    // a.txt written back.
    // (A turn checkpoint stands in for the restore's own: one of kind before-restore is pruned at once when no
    // restore in the log names it yet.)
    const before = await store.snapshot({ sessionKey: 's', root: ws, label: 'the restore\'s checkpoint' });
    const record = { type: 'restore', id: 'r1', at: 0, target: cp.id, before: before.id, files: true, summary: { modified: 3, created: 0, deleted: 1 } };
    writeFileSync(path.join(store.dir, 'journal.json'), JSON.stringify({ op: 'restore', sessionKey: 's', root: ws, startedAt: 0, tree: cp.tree, record }));
    write(ws, 'a.txt', 'a then\n');
    // At the next start, b.txt's write meets a folder put there since (read 3: b.txt's write, after the two checks).
    let reads = 0;
    const spy = vi.spyOn(ObjectReader.prototype, 'read').mockImplementation(function (this: ObjectReader, h: string) {
      if (++reads === 3) {
        rmSync(path.join(ws, 'b.txt'));
        write(ws, 'b.txt/planted', 'x');
      }
      return realRead.call(this, h);
    });
    const notices: string[] = [];
    try {
      await new CheckpointStore(store.dir, { racyMs: 0, onNotice: (l) => notices.push(l) }).recoverNow();
    } finally {
      spy.mockRestore();
    }
    expect(notices).toEqual([expect.stringMatching(/could not be completed \(b\.txt: a folder is in the way\): .* was put back as it was before that restore\.$/)]);
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'new.txt']);
    expect(['a', 'b', 'c'].map((n) => readFileSync(path.join(ws, `${n}.txt`), 'utf8'))).toEqual(['a now\n', 'b now\n', 'c now\n']);
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
    // The store works on: the restore can be made now.
    await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(ws, 'b.txt'), 'utf8')).toBe('b then\n');
  });

  describe.skipIf(!canRunAsNobody)('as an unprivileged user (setpriv)', () => {
    let bundle: Awaited<ReturnType<typeof bundleForNobody>> | undefined;
    afterAll(async () => bundle?.dispose());
    it.each([
      ['read-only (0555)', 0o555],
      ['mode 0', 0],
    ])('a folder made %s before the restore: the folder is left as before, one clear line, no journal; it restores once fixed', async (_name, mode) => {
      if (!bundle) {
        bundle = await bundleForNobody('test/support/checkpoint-readonly-child.ts');
        // `ignore` is loaded with require() at the first snapshot (scan.ts): beside the bundle, world-readable.
        const to = path.join(path.dirname(bundle.script), 'node_modules', 'ignore');
        cpSync(path.join(ROOT, 'node_modules', 'ignore'), to, { recursive: true });
        spawnSync('chmod', ['-R', 'a+rX', path.dirname(to)]);
      }
      const { dir, dispose } = await nobodyFolder('cpro');
      try {
        const out = JSON.parse(await nodeAsNobody(bundle.script, [dir, String(mode)])) as {
          error?: { name: string; message: string };
          files: Record<string, string>;
          journal: boolean;
          after: Record<string, string>;
        };
        expect(out.error?.name).toBe('RestoreFailedError');
        expect(out.error?.message).toMatch(/\(b\/f\.txt: permission denied\): nothing was changed, the folder is as it was before\.$/);
        expect(out.files).toEqual({ 'a/f.txt': 'a now\n', 'a/new.txt': 'created since\n', 'b/f.txt': 'b now\n', 'c/f.txt': 'c now\n' });
        expect(out.journal).toBe(false);
        expect(out.after).toEqual({ 'a/f.txt': 'a then\n', 'b/f.txt': 'b then\n', 'c/f.txt': 'c then\n' });
      } finally {
        await dispose();
      }
    }, 60_000);
  });
});

describe('a second restore of the same session', () => {
  it('while another process holds the session (a run, or a restore): refused with a line that names both', async () => {
    const ws = tmp('ws');
    const sessionsDir = tmp('sessions');
    const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {} });
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'a.txt', 'changed\n');
    // The other process's restore (or run) holds the session's lock: the same lock file.
    const release = await sessionRunLock(sessionsDir)('s', undefined);
    try {
      const service = new CheckpointService({ store, sessions: new SessionStore(sessionsDir), lockWaitMs: 100 });
      await expect(service.restore('s', cp.id, 'files')).rejects.toThrow(/^A run is active on session "s", or another restore of it: restore when it has finished/);
      await expect(service.undo('s')).rejects.toThrow(/or another restore of it/);
    } finally {
      await release();
    }
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
  });
});

describe('.gitignore cannot bring .git or node_modules into a checkpoint', () => {
  it('negations (!.git, !.git/**, !node_modules/, !*/) and a nested "!*" re-include neither, at any depth', async () => {
    const { ws, store } = smallCapStore();
    write(ws, '.gitignore', '*\n!.git\n!.git/**\n!node_modules/\n!*/\n!keep.txt\n');
    write(ws, '.git/hooks/pre-commit', '#!/bin/sh\n');
    write(ws, 'node_modules/x/index.js', 'x');
    write(ws, 'keep.txt', 'k');
    write(ws, 'dropped.txt', 'ignored by "*"');
    write(ws, 'sub/.gitignore', '!*\n!.git/\n');
    write(ws, 'sub/a.txt', 'a');
    write(ws, 'sub/.git/config', '[core]\n\tfsmonitor = evil\n');
    write(ws, 'sub/node_modules/y.js', 'y');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    expect(store.loadTree(cp.tree).entries.map((e) => e.p)).toEqual(['keep.txt', 'sub', 'sub/.gitignore', 'sub/a.txt']);
  });
});

describe('the workspace itself replaced by a link', () => {
  /** Every name under `dir` with its content (the outside folder must stay exactly like this). */
  const listing = (dir: string) => Object.fromEntries(readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((n) => [n, lstatSync(path.join(dir, n)).isFile() ? readFileSync(path.join(dir, n), 'utf8') : 'dir']));

  it.each([
    ['the workspace folder', (ws: string) => ws],
    ['a folder above it', (ws: string) => path.dirname(ws)],
  ])('%s moved and a link to the person\'s home put there: the restore is refused, nothing outside is written or deleted', async (_name, swapped) => {
    // A chat whose workspace lies inside another chat's: that chat's agent (sandboxed to its own folder) can do this.
    const base = tmp('base');
    const ws = path.join(base, 'p', 'ws');
    const home = path.join(tmp('person'), 'home');
    write(home, 'thesis.tex', 'years of work\n');
    write(home, 'ws/notes.txt', 'the person\'s\n');
    write(ws, 'a.txt', 'a\n');
    const store = new CheckpointStore(tmp('store'), { racyMs: 0, onNotice: () => {} });
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    const at = swapped(ws);
    renameSync(at, `${at}.moved`);
    symlinkSync(at === ws ? home : path.dirname(home), at);
    const before = listing(home);
    await expect(store.restore({ sessionKey: 's', id: cp.id, files: true })).rejects.toThrow(/is no longer the folder that was checkpointed .*: nothing was changed\.$/);
    expect(listing(home)).toEqual(before);
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
  });

  it('swapped in after the restore checked it (before its first write): refused where the writes start, nothing outside changed', async () => {
    const ws = path.join(tmp('base'), 'ws');
    const home = tmp('person');
    write(home, 'thesis.tex', 'years of work\n');
    write(ws, 'a.txt', 'a\n');
    const store = new CheckpointStore(tmp('store'), { racyMs: 0, onNotice: () => {} });
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'a.txt', 'changed\n');
    const before = listing(home);
    // Read 1 checks a.txt's content before anything changes: the swap comes then.
    const spy = vi.spyOn(ObjectReader.prototype, 'read').mockImplementation(function (this: ObjectReader, h: string) {
      if (!existsSync(`${ws}.moved`)) {
        renameSync(ws, `${ws}.moved`);
        symlinkSync(home, ws);
      }
      return realRead.call(this, h);
    });
    try {
      await expect(store.restore({ sessionKey: 's', id: cp.id, files: true })).rejects.toThrow(/is no longer the folder that was checkpointed .*: nothing was changed\.$/);
    } finally {
      spy.mockRestore();
    }
    expect(listing(home)).toEqual(before);
    expect(readFileSync(path.join(`${ws}.moved`, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
  });
});

describe('a snapshot of a workspace replaced by a link', () => {
  it('is refused: nothing of the folder the link names is read into the store', async () => {
    const ws = path.join(tmp('base'), 'ws');
    const home = tmp('person');
    write(home, '.ssh/id_ed25519', 'PRIVATE KEY of the person\n');
    write(ws, '.ssh/id_ed25519', 'decoy\n');
    const store = new CheckpointStore(tmp('store'), { racyMs: 0, onNotice: () => {} });
    await store.snapshot({ sessionKey: 's', root: ws, label: 'first' });
    renameSync(ws, `${ws}.moved`);
    symlinkSync(home, ws);
    await expect(store.snapshot({ sessionKey: 's', root: ws, label: 'second' })).rejects.toThrow(/is no longer the folder that was checkpointed/);
    const index = new ObjectIndex(store.packsDir);
    index.refresh();
    expect(index.has(sha256(Buffer.from('decoy\n')))).toBe(true);
    expect(index.has(sha256(Buffer.from('PRIVATE KEY of the person\n')))).toBe(false);
  });
});

describe('a restore and an ignored thing where the checkpoint has a folder or a file', () => {
  it('an ignored file where the checkpoint has a folder, an ignored folder where it has a file: kept aside, recorded; undo puts both back', async () => {
    const { ws, store } = smallCapStore();
    write(ws, 'build/app.js', 'built then\n');
    write(ws, 'out', 'a file then\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    rmSync(path.join(ws, 'build'), { recursive: true });
    rmSync(path.join(ws, 'out'));
    write(ws, '.gitignore', 'build\nout/\n');
    write(ws, 'build', 'the person\'s notes\n');
    write(ws, 'out/artifact.bin', 'the person\'s artifact\n');
    const { record } = await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(ws, 'build/app.js'), 'utf8')).toBe('built then\n');
    expect(readFileSync(path.join(ws, 'out'), 'utf8')).toBe('a file then\n');
    expect(record.keep).toHaveLength(2);
    // Neither copy matches the .gitignore of the checkpoint (there is none): both are captured by the undo's own
    // checkpoint, and that undo goes back to a checkpoint without them.
    await undo(store, 's');
    expect(readdirSync(ws).sort()).toEqual(['.gitignore', 'build', 'out']);
    expect(readFileSync(path.join(ws, 'build'), 'utf8')).toBe('the person\'s notes\n');
    expect(readFileSync(path.join(ws, 'out/artifact.bin'), 'utf8')).toBe('the person\'s artifact\n');
  });
});
