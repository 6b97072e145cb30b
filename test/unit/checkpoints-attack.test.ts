/**
 * X2 checkpoints attacked, beyond test/unit/checkpoints-redteam.test.ts: the store reached through a symlink into
 * the workspace, restores over what a checkpoint did not capture (ignored by .gitignore, over the size cap), and a
 * restore that cannot finish (a folder made unwritable) — on the real file system, through CheckpointStore.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointService } from '../../main/checkpoints/service.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { SessionStore } from '../../main/sessions/store.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpat');
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
    settings: () => ({ keep: 100, maxAgeMs: 1e12, maxFileBytes: 1000, maxTotalBytes: 1e9 }),
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
