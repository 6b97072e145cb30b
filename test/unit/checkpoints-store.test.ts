/**
 * X2 checkpoint store: tree diffs and retention (tables), what a snapshot captures (.gitignore, .git, node_modules,
 * caps listed as skipped), the stat cache (unchanged files are not read again), a damaged store refusing a restore
 * before any file changes, garbage collection, and the person's .git never touched.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneLog } from '../../main/checkpoints/retention.js';
import { readLog, rewriteLog, type CheckpointRecord, type LogRecord, type RestoreRecord } from '../../main/checkpoints/log.js';
import { CheckpointStore, DEFAULT_CHECKPOINT_SETTINGS } from '../../main/checkpoints/store.js';
import { diffTrees, summarizeChanges, type TreeEntry } from '../../main/checkpoints/tree.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cps');
const write = (root: string, rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};
const f = (p: string, h: string, m = 0o644): TreeEntry => ({ p, k: 'f', m, h });
const d = (p: string, m = 0o755): TreeEntry => ({ p, k: 'd', m });
const l = (p: string, t: string): TreeEntry => ({ p, k: 'l', m: 0o777, t });

describe('diffTrees / summarizeChanges', () => {
  it.each([
    ['nothing changed', [f('a', '1')], [f('a', '1')], [], { modified: 0, created: 0, deleted: 0 }],
    ['content differs', [f('a', '1')], [f('a', '2')], ['modified a'], { modified: 1, created: 0, deleted: 0 }],
    ['mode differs', [f('a', '1', 0o644)], [f('a', '1', 0o755)], ['modified a'], { modified: 1, created: 0, deleted: 0 }],
    ['file to bring back', [], [f('a', '1')], ['created a'], { modified: 0, created: 1, deleted: 0 }],
    ['file to remove', [f('a', '1')], [], ['deleted a'], { modified: 0, created: 0, deleted: 1 }],
    ['folder with a file to remove', [d('x'), f('x/a', '1')], [], ['deleted x', 'deleted x/a'], { modified: 0, created: 0, deleted: 1 }],
    ['symlink retargeted', [l('s', 'a')], [l('s', 'b')], ['modified s'], { modified: 1, created: 0, deleted: 0 }],
    ['file becomes a folder', [f('x', '1')], [d('x'), f('x/y', '2')], ['modified x', 'created x/y'], { modified: 1, created: 1, deleted: 0 }],
    ['path order: "a-b" sorts before "a/b"', [d('a'), f('a-b', '1'), f('a/b', '1')], [d('a'), f('a/b', '1')], ['deleted a-b'], { modified: 0, created: 0, deleted: 1 }],
  ])('%s', (_name, current, target, changes, summary) => {
    const c = diffTrees({ entries: current }, { entries: target });
    expect(c.map((x) => `${x.kind} ${x.path}`)).toEqual(changes);
    expect(summarizeChanges(c)).toEqual(summary);
  });
});

const cp = (id: string, createdAt: number, kind: CheckpointRecord['kind'] = 'turn'): CheckpointRecord => ({
  type: 'checkpoint', id, createdAt, kind, label: id, files: 0, tree: `t-${id}`, root: '/w', sessionKey: 's', skipped: 0,
});
const rs = (id: string, before: string): RestoreRecord => ({
  type: 'restore', id, at: 0, target: 'x', before, files: true, summary: { modified: 0, created: 0, deleted: 0 },
});

describe('pruneLog (retention of a session log)', () => {
  const day = 24 * 3600 * 1000;
  it.each<[string, LogRecord[], { keep: number; maxAgeMs: number; now: number }, string[]]>([
    ['under both limits: all kept', [cp('a', 1), cp('b', 2)], { keep: 100, maxAgeMs: 30 * day, now: 3 }, ['a', 'b']],
    ['over the count: oldest dropped', [cp('a', 1), cp('b', 2), cp('c', 3)], { keep: 2, maxAgeMs: 30 * day, now: 3 }, ['b', 'c']],
    ['too old: dropped', [cp('a', 0), cp('b', 31 * day)], { keep: 100, maxAgeMs: 30 * day, now: 31 * day }, ['b']],
    [
      'a before-restore checkpoint lives as long as its restore',
      [cp('a', 1), cp('p', 2, 'before-restore'), rs('r', 'p'), cp('q', 3, 'before-restore')],
      { keep: 100, maxAgeMs: 30 * day, now: 3 },
      ['a', 'p', 'r'],
    ],
  ])('%s', (_name, records, o, kept) => {
    const file = path.join(tmp('log'), 's.jsonl');
    rewriteLog(file, records);
    expect(pruneLog(file, o)).toBe(kept.length < records.length);
    expect(readLog(file).map((r) => r.id)).toEqual(kept);
  });
});

describe('CheckpointStore', () => {
  it('captures what git would track, lists what it skipped, and a restore leaves ignored files alone', async () => {
    const root = tmp('ws');
    write(root, '.gitignore', 'build/\n*.log\n!keep.log\n');
    write(root, 'src/app.js', 'v1');
    write(root, 'build/out.js', 'built');
    write(root, 'debug.log', 'log 1');
    write(root, 'keep.log', 'kept 1');
    write(root, 'node_modules/x/index.js', 'dep');
    write(root, '.git/HEAD', 'ref: refs/heads/main\n');
    write(root, 'big.bin', 'x'.repeat(2048));
    const store = new CheckpointStore(tmp('home'), { settings: () => ({ ...DEFAULT_CHECKPOINT_SETTINGS, maxFileBytes: 1024 }), onNotice: () => {} });
    const rec = await store.snapshot({ sessionKey: 's', root, label: 'first' });
    const tree = store.loadTree(rec.tree);
    expect(tree.entries.map((e) => e.p)).toEqual(['.gitignore', 'keep.log', 'src', 'src/app.js']);
    expect(tree.skipped).toEqual([{ p: 'big.bin', reason: 'too-large', size: 2048 }]);
    expect(rec.skipped).toBe(1);
    expect(rec.skippedSample).toEqual(['big.bin (too-large)']);

    write(root, 'src/app.js', 'v2');
    write(root, 'debug.log', 'log 2');
    write(root, 'keep.log', 'kept 2');
    write(root, 'build/out.js', 'built 2');
    write(root, 'new.txt', 'created later');
    await store.restore({ sessionKey: 's', id: rec.id, files: true });
    expect(readFileSync(path.join(root, 'src/app.js'), 'utf8')).toBe('v1');
    expect(readFileSync(path.join(root, 'keep.log'), 'utf8')).toBe('kept 1');
    expect(existsSync(path.join(root, 'new.txt'))).toBe(false);
    // Not captured, so not touched:
    expect(readFileSync(path.join(root, 'debug.log'), 'utf8')).toBe('log 2');
    expect(readFileSync(path.join(root, 'build/out.js'), 'utf8')).toBe('built 2');
    expect(readFileSync(path.join(root, 'big.bin'), 'utf8')).toBe('x'.repeat(2048));
    expect(readFileSync(path.join(root, 'node_modules/x/index.js'), 'utf8')).toBe('dep');
  });

  it('a changed, added or removed .gitignore takes effect at the next snapshot (paths known from the last tree are re-checked)', async () => {
    const root = tmp('ws');
    const old = new Date(Date.now() - 60_000);
    const age = () => {
      for (const p of ['.gitignore', 'x.log', 'sub/.gitignore', 'sub/keep.log', 'sub/other.log']) {
        if (existsSync(path.join(root, p))) utimesSync(path.join(root, p), old, old);
      }
    };
    write(root, '.gitignore', 'build/\n');
    write(root, 'x.log', 'x');
    write(root, 'sub/.gitignore', '!keep.log\n');
    write(root, 'sub/keep.log', 'k');
    write(root, 'sub/other.log', 'o');
    age();
    const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {} });
    const paths = async () => store.loadTree((await store.snapshot({ sessionKey: 's', root, label: 'x' })).tree).entries.map((e) => e.p);
    expect(await paths()).toEqual(['.gitignore', 'sub', 'sub/.gitignore', 'sub/keep.log', 'sub/other.log', 'x.log']);
    write(root, '.gitignore', 'build/\n*.log\n');
    age();
    expect(await paths()).toEqual(['.gitignore', 'sub', 'sub/.gitignore', 'sub/keep.log']);
    rmSync(path.join(root, 'sub/.gitignore'));
    expect(await paths()).toEqual(['.gitignore', 'sub']);
    write(root, 'sub/.gitignore', '!other.log\n');
    age();
    expect(await paths()).toEqual(['.gitignore', 'sub', 'sub/.gitignore', 'sub/other.log']);
  });

  it('does not read unchanged files again (stat cache), but does read a file changed in place', async () => {
    const root = tmp('ws');
    for (let i = 0; i < 50; i++) write(root, `f${i}.txt`, `content ${i}`);
    const old = new Date(Date.now() - 60_000);
    for (let i = 0; i < 50; i++) utimesSync(path.join(root, `f${i}.txt`), old, old);
    const store = new CheckpointStore(tmp('home'), { onNotice: () => {} });
    await store.snapshot({ sessionKey: 's', root, label: '1' });
    expect(store.lastCapture?.read).toBe(50);
    await store.snapshot({ sessionKey: 's', root, label: '2' });
    expect(store.lastCapture?.read).toBe(0);
    write(root, 'f3.txt', 'changed');
    const third = await store.snapshot({ sessionKey: 's', root, label: '3' });
    expect(store.lastCapture?.read).toBe(1);
    expect(store.loadTree(third.tree).entries.find((e) => e.p === 'f3.txt')?.s).toBe(7);
  });

  it('the stat cache finds every unchanged file whatever sorts between it and its folder ("a", "a-b", "a.txt", "a/x"), in this store and in a new one', async () => {
    // The walk meets a folder's names in sorted order and each one's previous entry by a cursor into the previous
    // tree (scan.ts), where a subfolder's own entries sort after names like "a-b": a lost step would read files again.
    const root = tmp('ws');
    const names = ['a', 'a-b', 'a.txt', 'a b', 'a!', 'a/x', 'a/x-y', 'a/x/deep', 'a/x.y/z', 'a/b/c/d', 'ab', 'b/ü', 'b/z', 'b-/1', '-', 'Z', '日本/語'];
    const files = ['a-b', 'a.txt', 'a b', 'a!', 'a/x-y', 'a/x/deep', 'a/x.y/z', 'a/b/c/d', 'ab', 'b/ü', 'b/z', 'b-/1', '-', 'Z', '日本/語'];
    expect(names.filter((n) => !files.includes(n)).every((n) => files.some((f) => f.startsWith(`${n}/`)))).toBe(true);
    for (const rel of files) write(root, rel, `content of ${rel}`);
    const old = new Date(Date.now() - 60_000);
    for (const rel of files) utimesSync(path.join(root, rel), old, old);
    const home = tmp('home');
    const store = new CheckpointStore(home, { onNotice: () => {} });
    await store.snapshot({ sessionKey: 's', root, label: '1' });
    expect(store.lastCapture?.read).toBe(files.length);
    await store.snapshot({ sessionKey: 's', root, label: '2' });
    expect(store.lastCapture?.read).toBe(0);
    const fresh = new CheckpointStore(home, { onNotice: () => {} });
    await fresh.snapshot({ sessionKey: 's', root, label: '3' });
    expect(fresh.lastCapture?.read).toBe(0);
    // Changed in place (size, mtime): read again, and only they.
    write(root, 'a/x/deep', 'changed deep');
    write(root, 'a-b', 'changed a-b');
    const fourth = await fresh.snapshot({ sessionKey: 's', root, label: '4' });
    expect(fresh.lastCapture?.read).toBe(2);
    const entries = store.loadTree(fourth.tree).entries;
    expect(entries.map((e) => e.p)).toEqual([...entries.map((e) => e.p)].sort());
    expect(entries.find((e) => e.p === 'a/x/deep')?.s).toBe('changed deep'.length);
    expect(entries.filter((e) => e.k === 'f').map((e) => e.p).sort()).toEqual([...files].sort());
  });

  it('a damaged store refuses the restore before any file changes', async () => {
    const root = tmp('ws');
    write(root, 'a.txt', 'original a');
    write(root, 'b.txt', 'original b');
    const home = tmp('home');
    const store = new CheckpointStore(home, { onNotice: () => {} });
    const rec = await store.snapshot({ sessionKey: 's', root, label: '1' });
    write(root, 'a.txt', 'changed a');
    write(root, 'b.txt', 'changed b');
    const packs = path.join(home, 'packs');
    for (const p of readdirSync(packs).filter((n) => n.endsWith('.pack'))) {
      const buf = readFileSync(path.join(packs, p));
      buf[0] = buf[0]! ^ 0xff;
      writeFileSync(path.join(packs, p), buf);
    }
    await expect(store.restore({ sessionKey: 's', id: rec.id, files: true })).rejects.toThrow(/damaged copy/);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('changed a');
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('changed b');
  });

  it('keeps the last N turn checkpoints and collects what nothing references (delta trees keep their bases)', async () => {
    const root = tmp('ws');
    const home = tmp('home');
    for (let i = 0; i < 40; i++) write(root, `f${i}.txt`, `stable ${i}`);
    const store = new CheckpointStore(home, { settings: () => ({ ...DEFAULT_CHECKPOINT_SETTINGS, keep: 2 }), onNotice: () => {} });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      write(root, 'file.txt', `version ${i} `.repeat(100));
      ids.push((await store.snapshot({ sessionKey: 's', root, label: `turn ${i}` })).id);
    }
    expect(store.list('s').map((r) => r.label)).toEqual(['turn 3', 'turn 4']);
    // Every kept checkpoint still restores exactly, from a fresh store (trees and bases read back from disk).
    for (const [i, id] of [[3, ids[3]!], [4, ids[4]!]] as const) {
      await new CheckpointStore(home, { onNotice: () => {} }).restore({ sessionKey: 's', id, files: true });
      expect(readFileSync(path.join(root, 'file.txt'), 'utf8')).toBe(`version ${i} `.repeat(100));
      expect(readFileSync(path.join(root, 'f7.txt'), 'utf8')).toBe('stable 7');
    }
    // Versions 0-2 of file.txt are gone from the packs; the live ones and the stable files remain.
    const packed = readdirSync(path.join(home, 'packs'))
      .filter((n) => n.endsWith('.pack'))
      .reduce((n, p) => n + statSync(path.join(home, 'packs', p)).size, 0);
    expect(packed).toBeLessThan(3 * 1000 + 40 * 10);
    expect(packed).toBeGreaterThanOrEqual(2 * 1000);
    await store.deleteSession('s');
    expect(store.list('s')).toEqual([]);
  });

  it('never writes into the workspace .git, and restores symlinks as links (never followed)', async () => {
    const root = tmp('ws');
    const outside = tmp('outside');
    write(outside, 'secret.txt', 'outside');
    write(root, '.git/config', '[core]\n');
    write(root, 'a.txt', 'a');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link'));
    const store = new CheckpointStore(tmp('home'), { onNotice: () => {} });
    const rec = await store.snapshot({ sessionKey: 's', root, label: '1' });
    rmSync(path.join(root, 'link'));
    write(root, 'link', 'now a file');
    chmodSync(path.join(root, '.git/config'), 0o600);
    const gitBefore = readFileSync(path.join(root, '.git/config'));
    await store.restore({ sessionKey: 's', id: rec.id, files: true });
    expect(lstatSync(path.join(root, 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside');
    expect(readFileSync(path.join(root, '.git/config'))).toEqual(gitBefore);
    expect(statSync(path.join(root, '.git/config')).mode & 0o777).toBe(0o600);
  });
});
