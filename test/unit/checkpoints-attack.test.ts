/**
 * X2 checkpoints attacked, beyond test/unit/checkpoints-redteam.test.ts: the store reached through a symlink into
 * the workspace, restores over what a checkpoint did not capture (ignored by .gitignore, over the size cap), and a
 * restore that cannot finish (a folder made unwritable) — on the real file system, through CheckpointStore.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/checkpoints/store.js';
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
