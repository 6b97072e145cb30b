/**
 * X2 copy-on-write at the gate (gate.ts, preimage.ts, patch.ts, pending.ts): a `write`/`edit` whose turn capture is
 * still being prepared saves its one path's pre-image and runs at once; the capture is patched before it is committed.
 *
 * - patchTree (pure, table): a modified file, a file created in new folders, a mode change, a file skipped after the
 *   change, a path the capture leaves out.
 * - targetOf / takePreImage (table): which calls may be saved (a symlink on the way, a hard link, a file over the
 *   cap, a .gitignore, a path outside: not).
 * - A real worker thread (the worker's TypeScript source through tsx) whose capture finishes after the write: the
 *   checkpoint still restores the pre-image, and a second mutating call waits for the commit.
 * - A record left by a killed process (pending.ts): the next store finishes it and says so.
 */
import { chmodSync, linkSync, renameSync, rmSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { patchTree, type PreImage } from '../../main/checkpoints/patch.js';
import { hasPending, savePending } from '../../main/checkpoints/pending.js';
import { CheckpointPrefetcher } from '../../main/checkpoints/prefetch.js';
import { takePreImage, targetOf } from '../../main/checkpoints/preimage.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { newCheckpointId } from '../../main/checkpoints/store.js';
import { sha256 } from '../../main/checkpoints/objects.js';
import type { Tree, TreeEntry } from '../../main/checkpoints/tree.js';
import { gateHarness } from '../support/checkpoint-gate.js';
import { tempDirs } from '../support/temp-dirs.js';
import { runCheckpointStep } from '../../main/engine/attempt/checkpoint-step.js';
import { createEditTool } from '../../main/tools/edit.js';
import type { Tool } from '../../main/tools/types.js';
import { createWriteTool } from '../../main/tools/write.js';

const tools: Record<string, Tool> = { write: createWriteTool(), edit: createEditTool() };

const tmp = tempDirs('cow');
const H = (c: string) => sha256(Buffer.from(c));
const f = (p: string, c: string, m = 0o644, stat = true): TreeEntry => ({ p, k: 'f', m, h: H(c), s: c.length, ...(stat ? { mt: 1, ct: 1, ino: 1 } : {}) });
const d = (p: string): TreeEntry => ({ p, k: 'd', m: 0o755 });
const tree = (entries: TreeEntry[], skipped: Tree['skipped'] = []): Tree => ({ v: 1, root: '/ws', takenAt: 5, entries, skipped });

describe('patchTree', () => {
  const pre = (p: string, c: string, m = 0o644): PreImage => ({ p, k: 'f', m, h: H(c), s: c.length });
  const cases: Array<[string, Tree, PreImage[], Tree]> = [
    ['a modified file gets its saved content (no stat key: read again next time)', tree([d('src'), f('src/a.js', 'new')]), [pre('src/a.js', 'old')], tree([d('src'), f('src/a.js', 'old', 0o644, false)])],
    ['a mode change is taken back', tree([f('run.sh', 'x', 0o644)]), [pre('run.sh', 'x', 0o755)], tree([f('run.sh', 'x', 0o755, false)])],
    [
      'a file created in new folders: the first new folder and all under it go',
      tree([d('a'), f('a/keep.txt', 'k'), d('a/b'), d('a/b/c'), f('a/b/c/new.txt', 'n'), f('a/bz.txt', 'z')]),
      [{ p: 'a/b/c/new.txt', k: 'absent', from: 'a/b' }],
      tree([d('a'), f('a/keep.txt', 'k'), f('a/bz.txt', 'z')]),
    ],
    ['a created file in an existing folder', tree([f('new.txt', 'n'), f('old.txt', 'o')]), [{ p: 'new.txt', k: 'absent', from: 'new.txt' }], tree([f('old.txt', 'o')])],
    ['a capture taken before the change is left as it was', tree([f('old.txt', 'o')]), [{ p: 'new.txt', k: 'absent', from: 'new.txt' }], tree([f('old.txt', 'o')])],
    [
      'a file skipped after the change (now too large) is captured as it was',
      tree([d('d'), f('d/z.txt', 'z')], [{ p: 'd/big.bin', reason: 'too-large', size: 99 }]),
      [pre('d/big.bin', 'small')],
      tree([d('d'), f('d/big.bin', 'small', 0o644, false), f('d/z.txt', 'z')]),
    ],
    ['a path the capture leaves out (ignored) stays out', tree([f('a.txt', 'a')]), [pre('node_modules/x.js', 'x')], tree([f('a.txt', 'a')])],
    [
      'a created path that was skipped goes from the skipped list too',
      tree([f('a.txt', 'a')], [{ p: 'huge/x.bin', reason: 'too-large' }]),
      [{ p: 'huge/x.bin', k: 'absent', from: 'huge' }],
      tree([f('a.txt', 'a')]),
    ],
    [
      "the atomic write's temp file, seen by a capture walking during the write, goes",
      tree([d('src'), f('src/.a.js.4242.0badf00d.tmp', 'new'), f('src/a.js', 'old')]),
      [pre('src/a.js', 'old')],
      tree([d('src'), f('src/a.js', 'old', 0o644, false)]),
    ],
    [
      'a created file: its temp file goes too (another process id, skipped as well)',
      tree([f('.new.txt.77.abcdef01.tmp', 'n'), f('old.txt', 'o')], [{ p: '.new.txt.78.abcdef02.tmp', reason: 'too-large' }]),
      [{ p: 'new.txt', k: 'absent', from: 'new.txt' }],
      tree([f('old.txt', 'o')]),
    ],
    [
      'names that only look alike stay (another suffix, not 8 hex digits, another folder, another file)',
      tree([d('src'), f('src/.a.js.1.0badf00d.bak', 'x'), f('src/.a.js.12.xyz.tmp', 'x'), f('src/.b.js.1.0badf00d.tmp', 'x'), f('src/a.js', 'o'), d('src/sub'), f('src/sub/.a.js.1.0badf00d.tmp', 'x')]),
      [pre('src/a.js', 'o')],
      tree([d('src'), f('src/.a.js.1.0badf00d.bak', 'x'), f('src/.a.js.12.xyz.tmp', 'x'), f('src/.b.js.1.0badf00d.tmp', 'x'), f('src/a.js', 'o', 0o644, false), d('src/sub'), f('src/sub/.a.js.1.0badf00d.tmp', 'x')]),
    ],
  ];
  it.each(cases)('%s', (_name, captured, preimages, expected) => {
    const before = JSON.stringify(captured);
    expect(patchTree(captured, preimages)).toEqual(expected);
    expect(JSON.stringify(captured)).toBe(before); // the capture itself is not changed
  });
});

describe('which calls are saved copy-on-write', () => {
  const root = '/ws';
  it.each([
    ['a relative path', '/ws', 'src/a.js', 'src/a.js'],
    ['an absolute path inside', '/ws', '/ws/src/a.js', 'src/a.js'],
    ['a run in a folder of the workspace', '/ws/sub', 'a.js', 'sub/a.js'],
    ['"..": the tool resolves it after links', '/ws', 'src/../a.js', undefined],
    ['"."', '/ws', './a.js', undefined],
    ['outside', '/ws', '/etc/passwd', undefined],
    ['the workspace itself', '/ws', '/ws', undefined],
    ['.git', '/ws', '.git/config', undefined],
    ['.GIT', '/ws', 'x/.GIT/hooks/pre-commit', undefined],
    ['a .gitignore (changes what is captured)', '/ws', 'src/.gitignore', undefined],
    ['not a string', '/ws', 42, undefined],
  ])('%s', (_name, workspace, input, expected) => {
    expect(targetOf(root, workspace, input)).toBe(expected);
  });

  it('takes a regular file, or a missing path with its first missing folder; refuses links, hard links and large files', () => {
    const ws = tmp('ws');
    writeFileSync(path.join(ws, 'a.txt'), 'content a');
    chmodSync(path.join(ws, 'a.txt'), 0o750);
    mkdirSync(path.join(ws, 'dir'));
    writeFileSync(path.join(ws, 'big.bin'), Buffer.alloc(2000));
    writeFileSync(path.join(ws, 'linked.txt'), 'two names');
    linkSync(path.join(ws, 'linked.txt'), path.join(ws, 'dir', 'other-name.txt'));
    symlinkSync(tmp('outside'), path.join(ws, 'via-link'));
    symlinkSync('a.txt', path.join(ws, 'file-link'));
    expect(takePreImage(ws, 'a.txt', 1000)).toEqual({ pre: { p: 'a.txt', k: 'f', m: 0o750, h: H('content a'), s: 9 }, data: Buffer.from('content a') });
    expect(takePreImage(ws, 'new.txt', 1000)).toEqual({ pre: { p: 'new.txt', k: 'absent', from: 'new.txt' } });
    expect(takePreImage(ws, 'dir/x/y/new.txt', 1000)).toEqual({ pre: { p: 'dir/x/y/new.txt', k: 'absent', from: 'dir/x' } });
    expect(takePreImage(ws, 'big.bin', 1000)).toBeUndefined();
    expect(takePreImage(ws, 'linked.txt', 1000)).toBeUndefined();
    expect(takePreImage(ws, 'via-link/new.txt', 1000)).toBeUndefined();
    expect(takePreImage(ws, 'file-link', 1000)).toBeUndefined();
    expect(takePreImage(ws, 'dir', 1000)).toBeUndefined();
    expect(takePreImage(ws, 'a.txt/below', 1000)).toBeUndefined();
  });
});

const WORKER_SOURCE = new URL('../../main/checkpoints/checkpoint-worker.ts', import.meta.url).href;

/** A gate with a real worker whose answers the test releases (`release`): the capture finishes after the write. */
async function setup(o: { dropAhead?: boolean } = {}) {
  const root = tmp('ws');
  for (let i = 0; i < 20; i++) writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  writeFileSync(path.join(root, 'a.txt'), 'original a\n');
  chmodSync(path.join(root, 'a.txt'), 0o755);
  const home = tmp('home');
  const notices: string[] = [];
  const store = new CheckpointStore(home, { onNotice: (l) => notices.push(l) });
  await store.snapshot({ sessionKey: 'first', root, label: 'first' });
  const held: Array<() => void> = [];
  const prefetch = new CheckpointPrefetcher({
    store,
    minEntries: 1,
    spawn: () => {
      const w = new Worker(`const { register } = await import('tsx/esm/api'); register(); await import(${JSON.stringify(WORKER_SOURCE)});`, { eval: true });
      // A capture's job is posted only when the test says so (`release`): until then it is "still being prepared".
      const post = w.postMessage.bind(w);
      // With `dropAhead` the pre-images sent during the walk are lost: the answered capture is patched after.
      w.postMessage = (m: { input?: unknown; ahead?: unknown }) => (m.input ? void held.push(() => post(m)) : m.ahead && o.dropAhead ? undefined : post(m));
      return w;
    },
  });
  const { lifecycle, gate } = gateHarness(store, root, prefetch);
  const emitted: Array<Record<string, unknown>> = [];
  /** The engine's checkpoint step for a call of `toolName` (the real write / edit tools; any other tool says nothing). */
  const call = (runId: string, toolName: string, params: Record<string, unknown>) =>
    runCheckpointStep(gate, tools[toolName] ?? ({ name: toolName } as Tool), { runId, sessionKey: 's', toolName, workspace: root, emit: (x) => void emitted.push(x as Record<string, unknown>) }, params);
  const release = () => held.splice(0).forEach((go) => go());
  const contentOf = async (treeId: string, p: string) => {
    const e = store.loadTree(treeId).entries.find((x) => x.p === p);
    return e?.h ? (await store.readObject(e.h)).toString('utf8') : undefined;
  };
  return { root, home, store, prefetch, gate, lifecycle, call, emitted, release, contentOf, notices };
}

describe('copy-on-write with a real checkpoint worker', () => {
  it.each([
    ['the pre-images reach the worker during its walk', false],
    ['they come too late: the answered capture is patched after', true],
  ])('a write runs before the capture; the checkpoint is the folder just before it (modified file, mode, created folders): %s', async (_name, dropAhead) => {
    const h = await setup({ dropAhead });
    try {
      h.lifecycle('r1', 'start');
      let passed = false;
      await h.call('r1', 'write', { path: 'a.txt', content: 'x' }).then(() => (passed = true));
      expect(passed).toBe(true); // not waiting for the worker: its job has not even been sent
      expect(hasPending(h.store.dir)).toBe(true);
      // The tool: content and mode changed. The person creates a folder meanwhile (after the turn started: recorded).
      writeFileSync(path.join(h.root, 'a.txt'), 'written by the agent\n');
      chmodSync(path.join(h.root, 'a.txt'), 0o600);
      // A second mutating call of the turn waits for the commit, and so does a preview (a restore's first step).
      let second = false;
      const secondCall = h.call('r1', 'exec', { command: 'rm f1.txt' }).then(() => (second = true));
      let previewed = false;
      const preview = h.store.preview('first', h.store.list('first')[0]!.id).then(() => (previewed = true));
      await new Promise((r) => setTimeout(r, 50));
      expect([second, previewed]).toEqual([false, false]);
      expect(h.store.list('s')).toEqual([]);
      h.release(); // the capture runs now, after the write
      await Promise.all([secondCall, preview]);
      h.lifecycle('r1', 'end');
      const [cp] = h.store.list('s');
      expect(h.emitted).toEqual([expect.objectContaining({ phase: 'created', id: cp!.id, files: 21, savedFirst: ['a.txt'] })]);
      expect(await h.contentOf(cp!.tree, 'a.txt')).toBe('original a\n');
      expect(h.store.loadTree(cp!.tree).entries.find((e) => e.p === 'a.txt')!.m).toBe(0o755);
      expect(hasPending(h.store.dir)).toBe(false);
      expect(readdirSync(h.store.packsDir).filter((n) => n.startsWith('tmp-'))).toEqual([]);
      await h.store.restore({ sessionKey: 's', id: cp!.id, files: true });
      expect(readFileSync(path.join(h.root, 'a.txt'), 'utf8')).toBe('original a\n');
      expect(statSync(path.join(h.root, 'a.txt')).mode & 0o777).toBe(0o755);

      // Next turn: a file created in new folders.
      h.lifecycle('r2', 'start');
      await h.call('r2', 'edit', { path: 'n1/n2/new.txt', edits: [] }); // a missing path: saved as absent
      mkdirSync(path.join(h.root, 'n1', 'n2'), { recursive: true });
      writeFileSync(path.join(h.root, 'n1', 'n2', 'new.txt'), 'new\n');
      h.release();
      h.lifecycle('r2', 'end');
      await h.store.settled();
      const second2 = h.store.list('s')[1]!;
      const paths = h.store.loadTree(second2.tree).entries.map((e) => e.p);
      expect(paths.filter((p) => p.startsWith('n1'))).toEqual([]);
      expect(paths).toContain('a.txt');
      await h.store.restore({ sessionKey: 's', id: second2.id, files: true });
      expect(existsSync(path.join(h.root, 'n1'))).toBe(false);
      // The next capture reads the patched file again (no stale stat cache): a third checkpoint sees it as it is.
      writeFileSync(path.join(h.root, 'a.txt'), 'third\n');
      const third = await h.store.snapshot({ sessionKey: 's', root: h.root, label: 'third' });
      expect(await h.contentOf(third.tree, 'a.txt')).toBe('third\n');
    } finally {
      await h.prefetch.close();
    }
  });

  it("the next run started while the last one's commit is in flight: its capture is prepared once that commit is in", async () => {
    const h = await setup();
    try {
      h.lifecycle('r1', 'start');
      await h.call('r1', 'write', { path: 'a.txt', content: 'x' });
      writeFileSync(path.join(h.root, 'a.txt'), 'written by r1\n');
      h.lifecycle('r1', 'end');
      h.lifecycle('r2', 'start');
      expect(h.prefetch.has('r2')).toBe(false);
      h.release(); // r1's capture
      await h.store.settled();
      await new Promise((r) => setImmediate(r));
      expect(h.prefetch.has('r2')).toBe(true); // prepared now, on the worker
      let passed = false;
      await h.call('r2', 'write', { path: 'a.txt', content: 'y' }).then(() => (passed = true));
      expect(passed).toBe(true); // copy-on-write again: r2's capture is still held by the test
      writeFileSync(path.join(h.root, 'a.txt'), 'written by r2\n');
      h.lifecycle('r2', 'end');
      h.release();
      await h.store.settled();
      const [cp1, cp2] = h.store.list('s');
      expect(await h.contentOf(cp1!.tree, 'a.txt')).toBe('original a\n');
      expect(await h.contentOf(cp2!.tree, 'a.txt')).toBe('written by r1\n');
      expect(cp2!.takenAt).toEqual(expect.any(Number)); // the worker's capture
    } finally {
      await h.prefetch.close();
    }
  });

  it("the run's end does not wait for its commit; until it is committed the next run's change waits for it, and no capture is prepared beside it", async () => {
    const h = await setup();
    try {
      h.lifecycle('r1', 'start');
      await h.call('r1', 'write', { path: 'a.txt', content: 'x' });
      writeFileSync(path.join(h.root, 'a.txt'), 'written by r1\n');
      h.lifecycle('r1', 'end'); // the reply is done: the run ends while the worker still holds its capture
      expect(h.store.busy()).toBe(true);
      expect(h.store.list('s')).toEqual([]);
      h.lifecycle('r2', 'start'); // the same chat's next message, at once
      expect(h.prefetch.has('r2')).toBe(false); // nothing prepared beside r1's commit
      let passed = false;
      const r2 = h.call('r2', 'write', { path: 'a.txt', content: 'y' }).then(() => (passed = true));
      await new Promise((r) => setTimeout(r, 50));
      expect(passed).toBe(false); // r1's checkpoint comes first; r2's is then captured at the gate
      h.release();
      await r2;
      writeFileSync(path.join(h.root, 'a.txt'), 'written by r2\n');
      h.lifecycle('r2', 'end');
      await h.store.settled();
      const [cp1, cp2] = h.store.list('s');
      expect(await h.contentOf(cp1!.tree, 'a.txt')).toBe('original a\n');
      expect(await h.contentOf(cp2!.tree, 'a.txt')).toBe('written by r1\n');
      expect(h.emitted.map((e) => e.phase)).toEqual(['created', 'created']);
      expect(hasPending(h.store.dir)).toBe(false);
    } finally {
      await h.prefetch.close();
    }
  });

  it("a chat deleted while its last turn's checkpoint is still committing: the checkpoint goes with it", async () => {
    const h = await setup();
    try {
      h.lifecycle('r1', 'start');
      await h.call('r1', 'write', { path: 'a.txt', content: 'x' });
      h.lifecycle('r1', 'end');
      let deleted = false;
      const del = h.store.deleteSession('s').then(() => (deleted = true));
      await new Promise((r) => setTimeout(r, 50));
      expect(deleted).toBe(false); // it waits for the commit
      h.release();
      await del;
      expect(h.store.list('s')).toEqual([]);
      expect(hasPending(h.store.dir)).toBe(false);
    } finally {
      await h.prefetch.close();
    }
  });

  it('exec, a symlinked path, a file over 2 MB, or another tool: the call waits for the capture as before', async () => {
    const h = await setup();
    try {
      symlinkSync(tmp('elsewhere'), path.join(h.root, 'lnk'));
      writeFileSync(path.join(h.root, 'big.bin'), Buffer.alloc(2 * 1024 * 1024 + 1));
      const calls = [['exec', { command: 'true' }], ['write', { path: 'lnk/x.txt', content: 'x' }], ['edit', { path: 'big.bin', edits: [] }], ['apply_patch', { input: '' }]] as const;
      for (const [i, [tool, params]] of calls.entries()) {
        const runId = `r${i}-${tool}`;
        h.lifecycle(runId, 'start');
        let passed = false;
        const p = h.call(runId, tool, params).then(() => (passed = true));
        await new Promise((r) => setTimeout(r, 30));
        expect(passed, `${tool}`).toBe(false);
        h.release();
        await p;
        h.lifecycle(runId, 'end');
        expect(hasPending(h.store.dir)).toBe(false);
      }
    } finally {
      await h.prefetch.close();
    }
  });
});

/** A gate whose runs get no prepared capture (a small folder: no worker is started for it). */
async function setupSmall(deferMaxMs?: number) {
  const root = tmp('ws');
  for (let i = 0; i < 5; i++) writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  writeFileSync(path.join(root, 'a.txt'), 'original a\n');
  const store = new CheckpointStore(tmp('home'), { onNotice: () => {} });
  await store.snapshot({ sessionKey: 'first', root, label: 'first' });
  let spawned = 0;
  const prefetch = new CheckpointPrefetcher({ store, spawn: () => void spawned++ });
  const { lifecycle, gate } = gateHarness(store, root, prefetch, deferMaxMs);
  const emitted: Array<Record<string, unknown>> = [];
  const call = (runId: string, toolName: string, params: Record<string, unknown>) =>
    runCheckpointStep(gate, tools[toolName] ?? ({ name: toolName } as Tool), { runId, sessionKey: 's', toolName, workspace: root, emit: (x) => void emitted.push(x as Record<string, unknown>) }, params);
  /** What the tool does: a.txt rewritten. */
  const write = () => writeFileSync(path.join(root, 'a.txt'), 'written by the agent\n');
  const a = async (cp: { tree: string }) => (await store.readObject(store.loadTree(cp.tree).entries.find((e) => e.p === 'a.txt')!.h!)).toString('utf8');
  const tick = () => new Promise((r) => setTimeout(r, 30));
  return { root, store, gate, lifecycle, call, emitted, write, a, tick, spawned: () => spawned };
}

describe('copy-on-write without a prepared capture: the folder is captured while the run waits for its model', () => {
  it('the write runs at once; the capture starts when the run next calls its model, and is the folder just before the write', async () => {
    const h = await setupSmall();
    h.lifecycle('r1', 'start');
    await h.call('r1', 'write', { path: 'a.txt', content: 'x' }); // returns before anything is captured
    expect(hasPending(h.store.dir)).toBe(true);
    h.write();
    await h.tick();
    expect(h.store.list('s')).toEqual([]); // not while the tool runs and the turn goes on
    h.gate.waiting!('r1');
    await h.store.settled();
    h.lifecycle('r1', 'end');
    const [cp] = h.store.list('s');
    expect(h.emitted).toEqual([expect.objectContaining({ phase: 'created', id: cp!.id, files: 6, savedFirst: ['a.txt'] })]);
    expect(await h.a(cp!)).toBe('original a\n');
    expect(hasPending(h.store.dir)).toBe(false);
    expect(h.spawned()).toBe(0); // no worker was asked for: a small folder
  });

  it.each([
    ['the run ends without another model call (its lifecycle end)', (h: Awaited<ReturnType<typeof setupSmall>>) => void h.lifecycle('r1', 'end')],
    ['the run ends in an error (its lifecycle error)', (h: Awaited<ReturnType<typeof setupSmall>>) => void h.lifecycle('r1', 'error')],
    ['a second mutating call of the same run (it waits for the commit)', (h: Awaited<ReturnType<typeof setupSmall>>) => h.call('r1', 'exec', { command: 'true' })],
  ])('also captured when %s', async (_name, next) => {
    const h = await setupSmall();
    h.lifecycle('r1', 'start');
    await h.call('r1', 'write', { path: 'a.txt', content: 'x' });
    h.write();
    await h.tick();
    expect(h.store.list('s')).toEqual([]);
    await next(h);
    await h.store.settled(); // the commit (it would never come without the release)
    const [cp] = h.store.list('s');
    expect(cp).toBeDefined();
    expect(await h.a(cp!)).toBe('original a\n');
    expect(hasPending(h.store.dir)).toBe(false);
  });

  it('a run that does not call its model again soon (a long read-only tool): captured after deferMaxMs all the same', async () => {
    const h = await setupSmall(60);
    h.lifecycle('r1', 'start');
    await h.call('r1', 'write', { path: 'a.txt', content: 'x' });
    h.write();
    expect(h.store.list('s')).toEqual([]);
    // Nothing of the run says anything after the write: the commit comes all the same.
    await expect.poll(() => h.store.list('s').length, { timeout: 5000 }).toBe(1);
    const [cp] = h.store.list('s');
    expect(await h.a(cp!)).toBe('original a\n');
    expect(hasPending(h.store.dir)).toBe(false);
  });

  it('another run changing the folder at the same time: the call waits for its capture, taken at the gate', async () => {
    const h = await setupSmall();
    h.lifecycle('r0', 'start');
    h.lifecycle('r1', 'start');
    await h.call('r0', 'exec', { command: 'true' }); // r0 passed the gate and is still running
    await h.call('r1', 'write', { path: 'a.txt', content: 'x' });
    expect(h.store.list('s').map((r) => r.runId)).toEqual(['r0', 'r1']); // committed before the tool could run
    expect(hasPending(h.store.dir)).toBe(false);
  });
});

describe('a copy-on-write record left by a killed process', () => {
  it('is finished by the next store from a capture then, patched with the saved copy, and said', async () => {
    const root = tmp('ws');
    writeFileSync(path.join(root, 'a.txt'), 'before the write\n');
    writeFileSync(path.join(root, 'b.txt'), 'b\n');
    const home = tmp('home');
    const first = new CheckpointStore(home, { onNotice: () => {} });
    await first.snapshot({ sessionKey: 'other', root, label: 'earlier' });
    // What the gate saves before the tool runs, as a process that is gone (pid 2^22+: none on this machine).
    const data = Buffer.from('before the write\n');
    const r = savePending(first.dir, { checkpointId: newCheckpointId(Date.now()), createdAt: Date.now(), input: { sessionKey: 's', root, label: 'the killed turn' }, preimages: [{ p: 'a.txt', k: 'f', m: 0o644, h: sha256(data), s: data.length }, { p: 'new/x.txt', k: 'absent', from: 'new' }] }, new Map([[sha256(data), data]]));
    // As a process that is gone left it: another id (this process does not know it) and a pid no process has.
    const dir = path.join(first.dir, 'pending');
    const id = `${r.id.split('-')[0]}-0123456789ab`;
    writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ ...r, id, pid: 4_194_305 }));
    renameSync(path.join(dir, `${r.id}.pack`), path.join(dir, `${id}.pack`));
    rmSync(path.join(dir, `${r.id}.json`));
    // The tool ran, then the process was killed.
    writeFileSync(path.join(root, 'a.txt'), 'after the write\n');
    mkdirSync(path.join(root, 'new'));
    writeFileSync(path.join(root, 'new', 'x.txt'), 'x\n');
    const notices: string[] = [];
    const next = new CheckpointStore(home, { onNotice: (l) => notices.push(l) });
    await next.recoverNow();
    expect(notices).toEqual([expect.stringMatching(/session "s" was interrupted; it was completed from the saved copy of a\.txt, new\/x\.txt/)]);
    const [cp] = next.list('s');
    expect(cp).toMatchObject({ id: r.checkpointId, label: 'the killed turn' });
    expect(next.loadTree(cp!.tree).entries.map((e) => e.p)).toEqual(['a.txt', 'b.txt']);
    await next.restore({ sessionKey: 's', id: cp!.id, files: true });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('before the write\n');
    expect(existsSync(path.join(root, 'new'))).toBe(false);
    expect(hasPending(next.dir)).toBe(false);
    expect(readdirSync(path.join(next.dir, 'pending'))).toEqual([]);
  });

  it('whose folder is gone is kept for a later start, said once, and leaves no journal behind', async () => {
    const root = tmp('ws');
    writeFileSync(path.join(root, 'a.txt'), 'a');
    const home = tmp('home');
    const first = new CheckpointStore(home, { onNotice: () => {} });
    await first.snapshot({ sessionKey: 'other', root, label: 'earlier' });
    const r = savePending(first.dir, { checkpointId: newCheckpointId(Date.now()), createdAt: Date.now(), input: { sessionKey: 's', root: path.join(root, 'gone'), label: 'x' }, preimages: [{ p: 'n.txt', k: 'absent', from: 'n.txt' }] }, new Map());
    const dir = path.join(first.dir, 'pending');
    const id = `${r.id.split('-')[0]}-0123456789ac`;
    writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ ...r, id, pid: 4_194_305 }));
    rmSync(path.join(dir, `${r.id}.json`));
    const notices: string[] = [];
    const next = new CheckpointStore(home, { onNotice: (l) => notices.push(l) });
    await next.recoverNow();
    await next.snapshot({ sessionKey: 'other', root, label: 'later' });
    expect(notices).toEqual([expect.stringMatching(/session "s" could not be completed yet .*tried again at the next start/)]);
    expect(existsSync(path.join(next.dir, 'journal.json'))).toBe(false);
    expect(hasPending(next.dir)).toBe(true);
  });

  it.each([
    ['a path with ..', { p: '../outside.txt', k: 'absent', from: '../outside.txt' }],
    ['a .git path', { p: '.git/hooks/pre-commit', k: 'f', m: 0o755, h: 'a'.repeat(64), s: 1 }],
    ['a "from" not on the way', { p: 'a/b.txt', k: 'absent', from: 'c' }],
    ['a mode past the permission bits', { p: 'a.txt', k: 'f', m: 0o100755, h: 'a'.repeat(64), s: 1 }],
  ])('a crafted record (%s) is removed, never applied', async (_name, pre) => {
    const root = tmp('ws');
    writeFileSync(path.join(root, 'a.txt'), 'a');
    const home = tmp('home');
    const store = new CheckpointStore(home, { onNotice: () => {} });
    await store.snapshot({ sessionKey: 'other', root, label: 'earlier' });
    mkdirSync(path.join(store.dir, 'pending'), { recursive: true });
    const id = 'mij3k2a0-0123456789ad';
    writeFileSync(path.join(store.dir, 'pending', `${id}.json`), JSON.stringify({ v: 1, id, pid: 4_194_305, checkpointId: 'x', createdAt: 1, input: { sessionKey: 's', root, label: 'x' }, preimages: [pre], rows: [] }));
    const notices: string[] = [];
    const next = new CheckpointStore(home, { onNotice: (l) => notices.push(l) });
    await next.recoverNow();
    expect(notices).toEqual([]);
    expect(next.list('s')).toEqual([]);
    expect(readdirSync(path.join(next.dir, 'pending'))).toEqual([]);
  });
});
