/**
 * X2 the reads and writes of a snapshot's contents: a file read into a reused buffer is exactly the file (a smaller
 * one as a view of it, a larger one read whole as before), the pack writer copies what it is given (a caller may
 * reuse its buffer at once) and writes it in large blocks that read back exactly, and the one-shot sha256 is sha256.
 * The walk lists names only and takes an entry's kind from its lstat: a folder-only .gitignore rule still matches
 * folders only, and a .gitignore that is a folder or a link is no rule file.
 */
import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { captureTree } from '../../main/checkpoints/capture.js';
import { ObjectIndex, ObjectReader, PackWriter, sha256 } from '../../main/checkpoints/objects.js';
import { scanWorkspace, seekPath } from '../../main/checkpoints/scan.js';
import type { TreeEntry } from '../../main/checkpoints/tree.js';
import { WorkspaceFs } from '../../main/checkpoints/workspace-fs.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cp-io');

describe('WorkspaceFs.readFile into a scratch buffer', () => {
  it('gives the file exactly: smaller than the buffer as a view of it, as large or larger read whole into its own buffer', () => {
    const ws = tmp('ws');
    const scratch = Buffer.alloc(64, 0x2a);
    const contents: Record<string, Buffer> = { empty: Buffer.alloc(0), small: randomBytes(10), edge: randomBytes(63), full: randomBytes(64), big: randomBytes(1000) };
    for (const [name, data] of Object.entries(contents)) writeFileSync(path.join(ws, name), data);
    const fs = new WorkspaceFs(ws);
    try {
      for (const [name, data] of Object.entries(contents)) {
        const got = fs.readFile(name, 1 << 20, scratch);
        expect(Buffer.isBuffer(got), name).toBe(true);
        expect((got as Buffer).equals(data), name).toBe(true);
        expect((got as Buffer).buffer === scratch.buffer, name).toBe(data.length < scratch.length);
        expect(fs.readFile(name, 1 << 20), name).toEqual(got);
      }
      // The cap holds on this path too.
      expect(fs.readFile('edge', 10, scratch)).toBe('too-large');
      expect(fs.readFile('missing', 10, scratch)).toBe('gone');
    } finally {
      fs.close();
    }
  });

  it('a capture that reads many files into one buffer stores each content under its own hash', async () => {
    const ws = tmp('ws');
    const files = Array.from({ length: 40 }, (_, i) => randomBytes(1 + ((i * 7919) % 3000)));
    files.forEach((d, i) => writeFileSync(path.join(ws, `f${i}`), d));
    const packs = tmp('packs');
    const index = new ObjectIndex(packs);
    const writer = new PackWriter(packs);
    const { tree } = await captureTree(ws, { limits: { maxFileBytes: 1 << 20, maxTotalBytes: 1 << 30 }, index, writer });
    writer.commit();
    index.refresh();
    const reader = new ObjectReader(index);
    try {
      for (const e of tree.entries) {
        const want = files[Number(e.p.slice(1))]!;
        expect(e.h).toBe(createHash('sha256').update(want).digest('hex'));
        expect(reader.read(e.h!).equals(want), e.p).toBe(true);
      }
    } finally {
      reader.close();
    }
  });
});

describe('PackWriter', () => {
  it('keeps a copy of what it is given: the caller may overwrite its buffer at once; small and large contents read back exactly', () => {
    const packs = tmp('packs');
    const writer = new PackWriter(packs);
    const reused = Buffer.alloc(5000);
    const added: Buffer[] = [];
    // Enough small contents to pass the writer's block size several times, then one larger than a block, then more.
    const sizes = [...Array.from({ length: 700 }, (_, i) => 1 + ((i * 4099) % 5000)), 3 * 1024 * 1024, 10, 0, 4000];
    for (const size of sizes) {
      const data = size <= reused.length ? reused.subarray(0, size) : Buffer.alloc(size);
      randomBytes(size).copy(data);
      added.push(Buffer.from(data));
      writer.add(sha256(data), data);
      data.fill(0x55); // the caller's next use of its buffer
    }
    writer.commit();
    const index = new ObjectIndex(packs);
    index.refresh();
    const reader = new ObjectReader(index);
    try {
      for (const data of added) expect(reader.read(sha256(data)).equals(data)).toBe(true);
    } finally {
      reader.close();
    }
  });

  it('abort leaves no file, written or buffered', () => {
    const packs = tmp('packs');
    const writer = new PackWriter(packs);
    writer.add(sha256(Buffer.from('a')), Buffer.from('a'));
    writer.abort();
    expect(readdirSync(packs)).toEqual([]);
    const w2 = new PackWriter(packs);
    w2.add(sha256(Buffer.alloc(2 * 1024 * 1024)), Buffer.alloc(2 * 1024 * 1024));
    w2.add(sha256(Buffer.from('b')), Buffer.from('b'));
    w2.abort();
    expect(readdirSync(packs)).toEqual([]);
    expect(existsSync(path.join(packs, `${w2.id}.pack`))).toBe(false);
  });
});

describe('sha256', () => {
  it('is createHash sha256 hex', () => {
    for (const data of [Buffer.alloc(0), Buffer.from('x'), randomBytes(100_000)]) expect(sha256(data)).toBe(createHash('sha256').update(data).digest('hex'));
  });
});

describe('the walk takes kinds from lstat (names-only listing)', () => {
  const limits = { maxFileBytes: 1 << 20, maxTotalBytes: 1 << 30 };
  it('a folder-only rule ignores the folder and not a file of that name; a .gitignore that is a folder or a link holds no rules', async () => {
    const ws = tmp('ws');
    writeFileSync(path.join(ws, '.gitignore'), 'build/\nout/\n*.log\n');
    mkdirSync(path.join(ws, 'build'));
    writeFileSync(path.join(ws, 'build', 'x'), 'x');
    writeFileSync(path.join(ws, 'out'), 'a file named out');
    writeFileSync(path.join(ws, 'a.log'), 'log');
    mkdirSync(path.join(ws, 'sub'));
    mkdirSync(path.join(ws, 'sub', 'build'));
    mkdirSync(path.join(ws, 'sub', '.gitignore')); // a folder of that name: no rules
    writeFileSync(path.join(ws, 'sub', '.gitignore', 'keep.log'), 'no'); // *.log from the root still applies
    writeFileSync(path.join(ws, 'sub', 'kept.txt'), 'kept');
    mkdirSync(path.join(ws, 'lnk'));
    writeFileSync(path.join(ws, 'lnk', 'kept.txt'), 'kept');
    writeFileSync(path.join(ws, 'rules'), 'kept.txt\n');
    symlinkSync('../rules', path.join(ws, 'lnk', '.gitignore')); // a link: not followed, no rules
    const { entries } = await scanWorkspace(ws, limits);
    expect(entries.map((e) => `${e.k} ${e.p}`)).toEqual(['f .gitignore', 'd lnk', 'l lnk/.gitignore', 'f lnk/kept.txt', 'f out', 'f rules', 'd sub', 'd sub/.gitignore', 'f sub/kept.txt']);
    // A later walk with the first as the previous tree: new paths are matched by their kind as well.
    mkdirSync(path.join(ws, 'sub', 'out'));
    writeFileSync(path.join(ws, 'sub', 'build2'), 'new');
    writeFileSync(path.join(ws, 'b.log'), 'new log');
    const later = await scanWorkspace(ws, limits, [], { entries });
    expect(later.entries.map((e) => `${e.k} ${e.p}`)).toEqual(['f .gitignore', 'd lnk', 'l lnk/.gitignore', 'f lnk/kept.txt', 'f out', 'f rules', 'd sub', 'd sub/.gitignore', 'f sub/build2', 'f sub/kept.txt']);
  });
});

describe('the walk meets each previous entry by a cursor (names in sorted order)', () => {
  const limits = { maxFileBytes: 1 << 20, maxTotalBytes: 1 << 30 };
  it('every unchanged file is answered by its previous entry itself, whatever sorts between a folder and its files', async () => {
    const ws = tmp('ws');
    const files = ['a-b', 'a.txt', 'a b', 'a!', 'a/x-y', 'a/x/deep', 'a/x.y/z', 'a/b/c/d', 'ab', 'b/ü', 'b/z', 'b-/1', '-', 'Z', '日本/語', 'a/x/deep2'];
    for (const rel of files) {
      mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      writeFileSync(path.join(ws, rel), rel);
    }
    const first = await scanWorkspace(ws, limits);
    // As a stored tree: every file with a hash.
    const prev: TreeEntry[] = first.entries.map((e) => (e.k === 'f' ? { ...e, h: 'f'.repeat(64) } : e));
    const later = await scanWorkspace(ws, limits, [], { entries: prev, cacheBefore: Date.now() + 60_000 });
    expect(later.entries.map((e) => e.p)).toEqual(prev.map((e) => e.p));
    for (const [i, e] of later.entries.entries()) if (e.k === 'f') expect(e, e.p).toBe(prev[i]);
    // Without the hashes (or with an entry's stat changed) a file is a new entry, to be read.
    const unhashed = await scanWorkspace(ws, limits, [], { entries: first.entries, cacheBefore: Date.now() + 60_000 });
    expect(unhashed.entries.filter((e) => e.k === 'f').every((e) => e.h === undefined)).toBe(true);
    writeFileSync(path.join(ws, 'a/x/deep'), 'changed');
    const changed = await scanWorkspace(ws, limits, [], { entries: prev, cacheBefore: Date.now() + 60_000 });
    expect(changed.entries.filter((e) => e.k === 'f' && e !== prev.find((p) => p.p === e.p)).map((e) => e.p)).toEqual(['a/x/deep']);
  });

  it('seekPath finds the first entry at or after a path from any start before it', () => {
    const entries = ['-', 'Z', 'a', 'a b', 'a-b', 'a/b', 'a/x', 'a/x/y', 'ab', 'b'].map((p): TreeEntry => ({ p, k: 'd', m: 0o755 }));
    for (const p of ['', '+', 'a', 'a!', 'a/', 'a/c', 'a/x/y', 'a/z', 'b', 'c']) {
      const want = entries.findIndex((e) => e.p >= p);
      for (let from = 0; from <= (want === -1 ? entries.length : want); from++) expect(seekPath(entries, from, p), `${p} from ${from}`).toBe(want === -1 ? entries.length : want);
    }
  });
});

