/**
 * X2: a binary copy of a whole tree (`trees/<id>.bin`, beside its `<id>.json.gz`), so a new process reads the base
 * of the last tree in a few ms instead of gunzip + JSON.parse of ~2 MB (≈ 10 ms for 10 000 entries). Whole trees are
 * written seldom (a workspace's first, then whenever the changes since the base pass a quarter of its entries), so
 * the copy costs a snapshot almost nothing; the JSON stays the tree's record and its id (sha256 of that text).
 *
 * Layout (little-endian): "ADTREE\x01\n", sha256 of everything after these 40 bytes, a uint32 header length, the
 * header (JSON: id, root, takenAt, entry count, section lengths, skipped), padding to 8 bytes, then five float64
 * columns (mode, size, mtime, ctime, inode; NaN = absent), one flag byte per entry (kind, has a hash), the paths
 * (UTF-8, NUL-separated: no path holds a NUL), the hashes (64 hex characters each, for the entries that have one)
 * and the symlink texts (UTF-8, NUL-separated).
 *
 * A copy that is damaged, cut short, of another tree or of another layout decodes to undefined, never to another
 * tree: the reader then reads the JSON (tree-files.ts). A tree this layout cannot hold (a NUL in a path or a link
 * text, a hash that is not sha256 hex) gets no copy.
 */
import { createHash } from 'node:crypto';
import type { SkippedEntry, Tree, TreeEntry } from './tree.js';
import { TREE_VERSION } from './tree.js';

const MAGIC = Buffer.from('ADTREE\x01\n', 'latin1');
const HEAD = MAGIC.length + 32;
const HASH_HEX = /^[0-9a-f]{64}$/;
const KIND = { d: 0, f: 1, l: 2 } as const;
const KINDS = ['d', 'f', 'l'] as const;
const HAS_HASH = 4;

interface Header {
  id: string;
  root: string;
  takenAt: number;
  n: number;
  pathBytes: number;
  hashes: number;
  links: number;
  linkBytes: number;
  skipped: SkippedEntry[];
}

/** A number column's value: NaN for an absent field; null when the field holds what the column cannot (no copy). */
const num = (x: unknown): number | null => (x === undefined ? NaN : typeof x === 'number' && x === x ? x : null);

/** The binary copy of whole tree `id` (undefined: this tree cannot be held in this layout). */
export function encodeTreeBin(id: string, tree: Tree): Buffer | undefined {
  const n = tree.entries.length;
  const cols = new Float64Array(5 * n);
  const flags = Buffer.alloc(n);
  const paths: string[] = new Array<string>(n);
  const hashes: string[] = [];
  const links: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = tree.entries[i]!;
    if (typeof e.p !== 'string' || e.p.includes('\0') || !(e.k in KIND)) return undefined;
    paths[i] = e.p;
    let f: number = KIND[e.k];
    if (e.h !== undefined) {
      if (typeof e.h !== 'string' || !HASH_HEX.test(e.h)) return undefined;
      hashes.push(e.h);
      f |= HAS_HASH;
    }
    if (e.k === 'l') {
      if (typeof e.t !== 'string' || e.t.includes('\0')) return undefined;
      links.push(e.t);
    } else if (e.t !== undefined) return undefined;
    flags[i] = f;
    const values = [num(e.m), num(e.s), num(e.mt), num(e.ct), num(e.ino)];
    for (let c = 0; c < 5; c++) {
      if (values[c] === null) return undefined;
      cols[c * n + i] = values[c]!;
    }
  }
  const pathBuf = Buffer.from(paths.join('\0'), 'utf8');
  const hashBuf = Buffer.from(hashes.join(''), 'latin1');
  const linkBuf = Buffer.from(links.join('\0'), 'utf8');
  const header: Header = { id, root: tree.root, takenAt: tree.takenAt, n, pathBytes: pathBuf.length, hashes: hashes.length, links: links.length, linkBytes: linkBuf.length, skipped: tree.skipped };
  const headerBuf = Buffer.from(JSON.stringify(header), 'utf8');
  const lenBuf = Buffer.alloc(4);
  lenBuf.writeUInt32LE(headerBuf.length);
  const pad = Buffer.alloc((8 - ((HEAD + 4 + headerBuf.length) % 8)) % 8);
  const body = Buffer.concat([lenBuf, headerBuf, pad, Buffer.from(cols.buffer, cols.byteOffset, cols.byteLength), flags, pathBuf, hashBuf, linkBuf]);
  return Buffer.concat([MAGIC, createHash('sha256').update(body).digest(), body]);
}

/**
 * The `count` NUL-separated UTF-8 strings of `buf[start, end)` (none: an empty range), each decoded on its own
 * (undefined: not exactly `count` of them).
 */
function splitNul(buf: Buffer, start: number, end: number, count: number): string[] | undefined {
  if (count === 0) return start === end ? [] : undefined;
  const out = new Array<string>(count);
  let from = start;
  for (let i = 0; i < count - 1; i++) {
    let q = from;
    while (q < end && buf[q] !== 0) q++;
    if (q >= end) return undefined;
    out[i] = buf.toString('utf8', from, q);
    from = q + 1;
  }
  for (let q = from; q < end; q++) if (buf[q] === 0) return undefined;
  out[count - 1] = buf.toString('utf8', from, end);
  return out;
}

/** The tree a binary copy holds, if it is intact and a copy of tree `id`; else undefined. */
export function decodeTreeBin(id: string, buf: Buffer): Tree | undefined {
  try {
    if (buf.length < HEAD + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const body = buf.subarray(HEAD);
    if (!createHash('sha256').update(body).digest().equals(buf.subarray(MAGIC.length, HEAD))) return undefined;
    const hlen = buf.readUInt32LE(HEAD);
    let at = HEAD + 4;
    const h = JSON.parse(buf.toString('utf8', at, at + hlen)) as Partial<Header> | null;
    at += hlen;
    at += (8 - (at % 8)) % 8;
    if (!h || h.id !== id || typeof h.root !== 'string' || typeof h.takenAt !== 'number' || !Array.isArray(h.skipped)) return undefined;
    const { n, pathBytes, hashes, links: linkCount, linkBytes } = h;
    if (![n, pathBytes, hashes, linkCount, linkBytes].every((x) => Number.isSafeInteger(x) && x! >= 0)) return undefined;
    if (at + 40 * n! + n! + pathBytes! + 64 * hashes! + linkBytes! !== buf.length) return undefined;
    // Read in place (no copy of the columns, no 200 KB string of all paths or 640 KB one of all hashes, each then
    // cut up): fresh memory is what a new process pays most for here — a large string or array lands on pages of
    // its own, each faulted in on first touch, and that cost this decode more than all its 10 000 entries did.
    const colAt = buf.byteOffset + at;
    const cols = colAt % 8 === 0 ? new Float64Array(buf.buffer, colAt, 5 * n!) : new Float64Array(new Uint8Array(buf.subarray(at, at + 40 * n!)).buffer);
    at += 40 * n!;
    const flags = buf.subarray(at, at + n!);
    at += n!;
    const paths = splitNul(buf, at, at + pathBytes!, n!);
    at += pathBytes!;
    const hashAt = at;
    at += 64 * hashes!;
    const links = splitNul(buf, at, at + linkBytes!, linkCount!);
    if (paths === undefined || links === undefined) return undefined;
    const entries: TreeEntry[] = new Array<TreeEntry>(n!);
    let hi = 0;
    let li = 0;
    for (let i = 0; i < n!; i++) {
      const f = flags[i]!;
      const k = KINDS[f & 3];
      if (k === undefined || f > 7) return undefined;
      const m = cols[i]!;
      const s = cols[n! + i]!;
      const mt = cols[2 * n! + i]!;
      const ct = cols[3 * n! + i]!;
      const ino = cols[4 * n! + i]!;
      if (k === 'f' && f & HAS_HASH && m === m && s === s && mt === mt && ct === ct && ino === ino) {
        // A file with every field (nearly every entry): one literal, in the order the walk builds them (scan.ts),
        // so both share one shape and no property store is grown per entry.
        if (hi >= hashes!) return undefined;
        entries[i] = { p: paths[i]!, k, m, s, mt, ct, ino, h: buf.toString('latin1', hashAt + 64 * hi, hashAt + 64 * ++hi) };
        continue;
      }
      const e: TreeEntry = { p: paths[i]!, k, m };
      if (s === s) e.s = s;
      if (mt === mt) e.mt = mt;
      if (ct === ct) e.ct = ct;
      if (ino === ino) e.ino = ino;
      if (f & HAS_HASH) {
        if (hi >= hashes!) return undefined;
        e.h = buf.toString('latin1', hashAt + 64 * hi, hashAt + 64 * ++hi);
      }
      if (k === 'l') {
        if (li >= links.length) return undefined;
        e.t = links[li++];
      }
      if (e.m !== e.m) delete (e as Partial<TreeEntry>).m;
      entries[i] = e;
    }
    if (hi !== hashes || li !== linkCount) return undefined;
    return { v: TREE_VERSION, root: h.root, takenAt: h.takenAt, entries, skipped: h.skipped };
  } catch {
    return undefined;
  }
}
