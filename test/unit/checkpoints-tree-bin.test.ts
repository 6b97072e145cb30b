/**
 * X2 tree-bin.ts: a whole tree's binary copy decodes to exactly the tree its JSON holds, or to nothing (damaged, cut
 * short, another tree's, a layout it cannot hold) — never to another tree; and TreeFiles / the store read it, fall
 * back to the JSON, write it for a store that had none, and remove it with its tree.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { readPointer } from '../../main/checkpoints/prepare.js';
import { decodeTreeBin, encodeTreeBin } from '../../main/checkpoints/tree-bin.js';
import { TreeFiles } from '../../main/checkpoints/tree-files.js';
import { encodeTree, treeId, type Tree, type TreeEntry } from '../../main/checkpoints/tree.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cp-treebin');
const H = (c: string) => c.repeat(64);
const f = (p: string, h = H('a'), extra: Partial<TreeEntry> = {}): TreeEntry => ({ p, k: 'f', m: 0o644, s: 3, mt: 1_700_000_000_123.4567, ct: 1_700_000_001_000, ino: 123456789, h, ...extra });
const d = (p: string): TreeEntry => ({ p, k: 'd', m: 0o755 });
const l = (p: string, t: string): TreeEntry => ({ p, k: 'l', m: 0o777, t });
const tree = (entries: TreeEntry[], skipped: Tree['skipped'] = []): Tree => ({ v: 1, root: '/ws', takenAt: 1_700_000_002_000, entries, skipped });

/** What the JSON of `t` reads back as: the copy must give exactly this (key presence included). */
/** The tree as its JSON file gives it back (tree-files.ts reads whole trees with JSON.parse). */
const viaJson = (t: Tree): Tree => JSON.parse(encodeTree(t)) as Tree;
const roundTrip = (t: Tree) => {
  const id = treeId(encodeTree(t));
  const bin = encodeTreeBin(id, t);
  expect(bin).toBeDefined();
  return decodeTreeBin(id, bin!);
};

describe('encodeTreeBin / decodeTreeBin', () => {
  it.each<[string, Tree]>([
    ['an empty tree', tree([])],
    ['folders, files, symlinks', tree([d('a'), f('a/b.txt'), l('a/link', '../b.txt'), f('c', H('b'), { m: 0o755 })])],
    ['Unicode, spaces and a newline in names and link texts', tree([d('ü dir'), f('ü dir/…\nx'), l('ü dir/l', 'target\nwith newline ü')])],
    ['a file without stat fields (and one without a hash: a crafted tree read only as a cache)', tree([{ p: 'a', k: 'f', m: 0o644, h: H('c') }, { p: 'b', k: 'f', m: 0o600, s: 0 }])],
    ['skipped entries', tree([f('a')], [{ p: 'big', reason: 'too-large', size: 11e6 }, { p: 'fifo', reason: 'special' }])],
    ['an inode past 2^32 and a zero size', tree([f('a', H('d'), { ino: 2 ** 40 + 3, s: 0 })])],
  ])('%s: the copy reads back as the JSON does', (_name, t) => {
    expect(roundTrip(t)).toStrictEqual(viaJson(t));
  });

  const entry = fc.oneof(
    fc.record({ p: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0')), k: fc.constant('f' as const), m: fc.nat(0o7777), h: fc.constantFrom(H('a'), H('0'), H('f')), s: fc.nat(), mt: fc.double({ min: 0, max: 2e12, noNaN: true }), ct: fc.double({ min: 0, max: 2e12, noNaN: true }), ino: fc.nat() }),
    fc.record({ p: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0')), k: fc.constant('d' as const), m: fc.nat(0o7777) }),
    fc.record({ p: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0')), k: fc.constant('l' as const), m: fc.nat(0o7777), t: fc.string({ maxLength: 20 }).filter((s) => !s.includes('\0')) }),
  );

  it('any tree it can hold reads back exactly as its JSON does', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), fc.nat(), (entries, takenAt) => {
        const t: Tree = { v: 1, root: '/ws', takenAt, entries: entries as TreeEntry[], skipped: [] };
        expect(roundTrip(t)).toStrictEqual(viaJson(t));
      }),
      { numRuns: 300 },
    );
  });

  it.each<[string, Tree]>([
    ['a NUL in a path', tree([f('a\0b')])],
    ['a NUL in a link text', tree([l('a', 'x\0y')])],
    ['a hash that is not sha256 hex', tree([f('a', 'abc')])],
    ['an upper-case hash', tree([f('a', H('A'))])],
    ['a number field that is not a number', tree([f('a', H('a'), { s: '3' as unknown as number })])],
    ['NaN in a number field', tree([f('a', H('a'), { mt: NaN })])],
    ['link text on a file', tree([f('a', H('a'), { t: 'x' })])],
    ['an unknown kind', tree([{ p: 'a', k: 'x' as 'f', m: 0 }])],
  ])('%s: no copy (the JSON alone is the tree)', (_name, t) => {
    expect(encodeTreeBin(treeId(encodeTree(t)), t)).toBeUndefined();
  });

  const sample = tree([d('a'), f('a/b.txt'), l('a/link', 'b.txt'), f('z', H('e'))], [{ p: 'big', reason: 'too-large', size: 1 }]);
  const sampleId = treeId(encodeTree(sample));
  const good = encodeTreeBin(sampleId, sample)!;

  it('a copy that starts at any byte offset of its buffer reads back the same (its columns are read in place when aligned)', () => {
    for (let shift = 0; shift < 9; shift++) {
      const at = Buffer.alloc(good.length + shift);
      good.copy(at, shift);
      expect(decodeTreeBin(sampleId, at.subarray(shift)), `shift ${shift}`).toStrictEqual(viaJson(sample));
    }
  });

  it('a copy cut short anywhere, or with any byte changed, decodes to nothing', () => {
    expect(decodeTreeBin(sampleId, good)).toStrictEqual(viaJson(sample));
    for (let n = 0; n < good.length; n++) expect(decodeTreeBin(sampleId, good.subarray(0, n))).toBeUndefined();
    for (let i = 0; i < good.length; i++) {
      const bad = Buffer.from(good);
      bad[i] ^= 0x01;
      expect(decodeTreeBin(sampleId, bad), `byte ${i}`).toBeUndefined();
    }
    expect(decodeTreeBin(sampleId, Buffer.concat([good, Buffer.from([0])]))).toBeUndefined();
  });

  it("another tree's copy under this id decodes to nothing", () => {
    expect(decodeTreeBin(H('1'), good)).toBeUndefined();
  });

  /** A copy whose checksum is right but whose header says something else (a crafted file). */
  function reforged(edit: (header: Record<string, unknown>) => void): Buffer {
    const hlen = good.readUInt32LE(40);
    const header = JSON.parse(good.toString('utf8', 44, 44 + hlen)) as Record<string, unknown>;
    edit(header);
    const text = Buffer.from(JSON.stringify(header), 'utf8');
    expect(text.length).toBe(hlen); // same length keeps the sections where they were
    const body = Buffer.concat([good.subarray(40, 44), text, good.subarray(44 + hlen)]);
    return Buffer.concat([good.subarray(0, 8), createHash('sha256').update(body).digest(), body]);
  }

  it.each<[string, (h: Record<string, unknown>) => void]>([
    ['one entry fewer', (h) => (h.n = (h.n as number) - 1)],
    ['one hash more', (h) => (h.hashes = (h.hashes as number) + 1)],
    ['one link more', (h) => (h.links = (h.links as number) + 1)],
    ['paths one byte longer', (h) => (h.pathBytes = (h.pathBytes as number) + 1)],
    ['another id', (h) => (h.id = H('2'))],
    ['a root that is not a path', (h) => (h.root = 12345)],
  ])('a well-formed copy whose header does not add up (%s) decodes to nothing', (_name, edit) => {
    expect(decodeTreeBin(sampleId, reforged(edit))).toBeUndefined();
  });
});

describe('TreeFiles with binary copies', () => {
  const whole = tree([d('a'), f('a/b.txt'), f('c', H('b'))]);
  const next = tree([d('a'), f('a/b.txt'), f('c', H('c'))]);

  it('a whole tree gets its copy, which a new reader uses; a damaged copy falls back to the JSON', () => {
    const dir = tmp('trees');
    const id = new TreeFiles(dir).save(whole);
    expect(existsSync(path.join(dir, `${id}.bin`))).toBe(true);
    // The JSON made unreadable: the tree is still read (from its copy).
    const gz = readFileSync(path.join(dir, `${id}.json.gz`));
    writeFileSync(path.join(dir, `${id}.json.gz`), 'not gzip');
    expect(new TreeFiles(dir).load(id)).toStrictEqual(viaJson(whole));
    // The copy damaged instead: read from the JSON, the same tree.
    writeFileSync(path.join(dir, `${id}.json.gz`), gz);
    const bin = readFileSync(path.join(dir, `${id}.bin`));
    bin[bin.length - 1] ^= 0xff;
    writeFileSync(path.join(dir, `${id}.bin`), bin);
    expect(new TreeFiles(dir).load(id)).toStrictEqual(viaJson(whole));
    // A delta gets no copy; removing a tree removes its copy.
    const files = new TreeFiles(dir);
    const deltaId = files.save(next, id);
    expect(files.baseOf(deltaId)).toBe(id);
    expect(existsSync(path.join(dir, `${deltaId}.bin`))).toBe(false);
    files.remove(id);
    expect(readdirSync(dir).filter((n) => n.startsWith(id))).toEqual([]);
  });

  it('a base without a copy (a store from before them) gets one with the next delta built on it', () => {
    const dir = tmp('old');
    const id = new TreeFiles(dir).save(whole);
    rmSync(path.join(dir, `${id}.bin`));
    const files = new TreeFiles(dir);
    files.loadForCache(id);
    const deltaId = files.save(next, id);
    expect(existsSync(path.join(dir, `${id}.bin`))).toBe(true);
    expect(new TreeFiles(dir).load(deltaId)).toStrictEqual({ ...viaJson(next), takenAt: next.takenAt });
    // Offered once per reader: the next delta does not encode it again.
    expect(files.encode({ ...next, takenAt: 5 }, deltaId).bins).toEqual([]);
  });

  it('a copy holding a path a restore must not write is refused by load as its JSON would be', () => {
    const dir = tmp('crafted');
    const crafted = tree([f('../outside')]);
    const id = treeId(encodeTree(crafted));
    writeFileSync(path.join(dir, `${id}.bin`), encodeTreeBin(id, crafted)!);
    expect(new TreeFiles(dir).loadForCache(id).entries.map((e) => e.p)).toEqual(['../outside']);
    expect(() => new TreeFiles(dir).load(id)).toThrow(/damaged tree/);
  });
});

describe('the store with binary copies', () => {
  it('a store written without them (as before) still opens, snapshots and restores, and gains the copy', async () => {
    const ws = tmp('ws');
    const home = tmp('home');
    writeFileSync(path.join(ws, 'a.txt'), 'one');
    const first = await new CheckpointStore(home, { onNotice: () => {}, racyMs: 0 }).snapshot({ sessionKey: 's', root: ws, label: 'one' });
    const trees = path.join(home, 'trees');
    for (const n of readdirSync(trees)) if (n.endsWith('.bin')) rmSync(path.join(trees, n));
    writeFileSync(path.join(ws, 'a.txt'), 'two');
    writeFileSync(path.join(ws, 'b.txt'), 'new');
    const store = new CheckpointStore(home, { onNotice: () => {}, racyMs: 0 });
    const second = await store.snapshot({ sessionKey: 's', root: ws, label: 'two' });
    expect(store.baseOf(second.tree)).toBe(first.tree);
    expect(existsSync(path.join(trees, `${first.tree}.bin`))).toBe(true);
    expect(readPointer(home, ws)?.tree).toBe(second.tree);
    await new CheckpointStore(home, { onNotice: () => {}, racyMs: 0 }).restore({ sessionKey: 's', id: first.id, files: true });
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('one');
    expect(existsSync(path.join(ws, 'b.txt'))).toBe(false);
  });
});
