/**
 * X2 lstat-fields.ts: the fast lstat gives exactly what fs.lstatSync gives (or is not used), and a snapshot's walk
 * finds the same tree with it and without it (also into one reused object). The walk's yielder (scan.ts) looks at the
 * clock every so many calls. An unchanged file is the previous tree's own entry object (the stat cache, capture.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { chmodSync, lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDir, isFile, isLink, lstatFields, lstatFieldsInto, probeRawLstat } from '../../main/checkpoints/lstat-fields.js';
import { captureTree } from '../../main/checkpoints/capture.js';
import { ObjectIndex } from '../../main/checkpoints/objects.js';
import { scanWorkspace, yielder } from '../../main/checkpoints/scan.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cp-lstat');

function workspace(): string {
  const ws = tmp('ws');
  mkdirSync(path.join(ws, 'src'));
  writeFileSync(path.join(ws, 'src', 'a.txt'), 'a');
  writeFileSync(path.join(ws, 'b.sh'), '#!/bin/sh\n');
  chmodSync(path.join(ws, 'b.sh'), 0o755);
  utimesSync(path.join(ws, 'src', 'a.txt'), 1_700_000_000.123456, 1_700_000_000.987654);
  symlinkSync('src/a.txt', path.join(ws, 'link'));
  writeFileSync(path.join(ws, '.gitignore'), 'ignored/\n');
  mkdirSync(path.join(ws, 'ignored'));
  writeFileSync(path.join(ws, 'ignored', 'x'), 'x');
  return ws;
}

describe('lstatFields', () => {
  it('gives what lstatSync gives, for a folder, a file (sub-ms times), an executable and a symlink (not followed)', () => {
    const ws = workspace();
    for (const rel of ['', 'src', 'src/a.txt', 'b.sh', 'link']) {
      const p = path.join(ws, rel);
      const st = lstatSync(p);
      const f = lstatFields(p);
      expect(f, rel).toEqual({ mode: st.mode, size: st.size, ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
      expect([isDir(f.mode), isFile(f.mode), isLink(f.mode)], rel).toEqual([st.isDirectory(), st.isFile(), st.isSymbolicLink()]);
    }
  });

  it('lstatFieldsInto writes the same fields into the one object it is given, and leaves it alone when it throws', () => {
    const ws = workspace();
    const out = { mode: -1, size: -1, ino: -1, mtimeMs: -1, ctimeMs: -1 };
    for (const rel of ['src', 'src/a.txt', 'b.sh', 'link']) {
      const p = path.join(ws, rel);
      expect(lstatFieldsInto(p, out)).toBe(out);
      expect({ ...out }, rel).toEqual(lstatFields(p));
    }
    const before = { ...out };
    expect(() => lstatFieldsInto(path.join(ws, 'gone'), out)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(out).toEqual(before);
  });

  it('throws with the code lstatSync throws (gone, a name under a file, a name too long)', () => {
    const ws = workspace();
    for (const p of [path.join(ws, 'gone'), path.join(ws, 'b.sh', 'x'), path.join(ws, 'n'.repeat(300))]) {
      let want: unknown;
      try {
        lstatSync(p);
      } catch (err) {
        want = (err as NodeJS.ErrnoException).code;
      }
      expect(want).toBeDefined();
      expect(() => lstatFields(p)).toThrow(expect.objectContaining({ code: want }));
    }
  });

  const good = process.platform === 'win32' ? undefined : (process as unknown as { binding: (n: string) => unknown }).binding('fs');
  it.each<[string, unknown, boolean]>([
    ['the binding of this Node (used)', good, process.platform !== 'win32'],
    ['none', {}, false],
    ['an lstat that throws', { lstat: () => { throw new Error('no'); } }, false],
    ['another layout (a plain array)', { lstat: () => [0, 0o40755, 1] }, false],
    ['wrong numbers', { lstat: () => new Float64Array(36) }, false],
    ['no error for a missing path', { lstat: (p: string) => ((good as { lstat: (...a: unknown[]) => unknown }).lstat(p.endsWith('no-such-entry') ? '/' : p, false, undefined, true)) }, false],
  ])('probe: %s', (_name, binding, used) => {
    expect(probeRawLstat(['/', process.execPath], binding) !== undefined).toBe(used);
  });

  it('a snapshot walk finds the same entries with the fast lstat and with lstatSync', async () => {
    const ws = workspace();
    const limits = { maxFileBytes: 1e9, maxTotalBytes: 1e12 };
    const fast = await scanWorkspace(ws, limits);
    // The product's own switch to lstatSync (--pending-deprecation would print DEP0111 for the binding), in fresh
    // module instances so the probe runs again.
    vi.stubEnv('NODE_PENDING_DEPRECATION', '1');
    vi.resetModules();
    try {
      const fresh = await import('../../main/checkpoints/lstat-fields.js');
      expect(fresh.probeRawLstat(['/'])).toBeUndefined();
      const plain = await (await import('../../main/checkpoints/scan.js')).scanWorkspace(ws, limits);
      expect(fast).toEqual(plain);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(fast.entries.map((e) => e.p)).toEqual(['.gitignore', 'b.sh', 'link', 'src', 'src/a.txt']);
  });
});

describe('yielder (the walk gives the event loop a turn every 15 ms of work)', () => {
  it.each([
    [1, [true, true, true, true]],
    [3, [false, false, true, false, false, true]],
  ])('with every = %i, the clock is looked at (and a slice of 0 ms used up) only at every such call', async (every, yields) => {
    const pause = yielder(0, every);
    const got: boolean[] = [];
    for (let i = 0; i < yields.length; i++) {
      const wait = pause();
      got.push(wait !== undefined);
      if (wait) await wait;
    }
    expect(got).toEqual(yields);
  });

  it('within its slice it does not yield', () => {
    const pause = yielder(60_000);
    expect(Array.from({ length: 100 }, () => pause())).toEqual(Array.from({ length: 100 }, () => undefined));
  });
});

describe('the stat cache keeps the previous tree own entries', () => {
  it('an unchanged file is the same entry object (hash included); a changed mode, content or a racy one is a new entry', async () => {
    const ws = workspace();
    const old = 1_700_000_000;
    for (const rel of ['src/a.txt', 'b.sh', '.gitignore']) utimesSync(path.join(ws, rel), old, old);
    mkdirSync(path.join(ws, 'more'));
    for (const n of ['same', 'chmod', 'edit', 'racy']) {
      writeFileSync(path.join(ws, 'more', n), n);
      utimesSync(path.join(ws, 'more', n), old, old);
    }
    const opts = { limits: { maxFileBytes: 1e9, maxTotalBytes: 1e12 }, index: new ObjectIndex(tmp('packs')), racyMs: 1000 };
    const first = (await captureTree(ws, opts)).tree;
    chmodSync(path.join(ws, 'more', 'chmod'), 0o600);
    utimesSync(path.join(ws, 'more', 'chmod'), old, old);
    writeFileSync(path.join(ws, 'more', 'edit'), 'edited');
    const racy = { ...first, entries: first.entries.map((e) => (e.p === 'more/racy' ? { ...e, mt: first.takenAt } : e)) };
    const next = (await captureTree(ws, { ...opts, previous: racy })).tree;
    const before = new Map(racy.entries.map((e) => [e.p, e]));
    const reused = next.entries.filter((e) => before.get(e.p) === e).map((e) => e.p);
    expect(reused).toEqual(['.gitignore', 'b.sh', 'more/same', 'src/a.txt']);
    const at = (p: string) => next.entries.find((e) => e.p === p)!;
    expect(at('more/chmod')).toMatchObject({ m: 0o600, h: before.get('more/chmod')!.h });
    expect(at('more/edit').h).not.toBe(before.get('more/edit')!.h);
    expect(at('more/racy')).toEqual({ ...before.get('more/racy'), mt: old * 1000 });
    // What the tree holds is what a walk without the cache finds (hashes from reading every file).
    expect(next.entries).toEqual((await captureTree(ws, opts)).tree.entries);
  });
});
