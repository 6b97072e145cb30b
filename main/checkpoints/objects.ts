/**
 * X2 content store: file contents by sha256, kept in pack files (`packs/<id>.pack` = the contents one after the
 * other, `packs/<id>.idx` = JSON [[hash, offset, length], …]). One snapshot writes at most one pack, so the first
 * snapshot of a 10 000-file workspace is one sequential write instead of 10 000 file creations.
 *
 * Crash safety: a pack is written under a temporary name (`tmp-*.pack`) and renamed into place before its index
 * is written the same way; a pack without its index is unknown to every reader and is removed by `sweep`. So a
 * reader only ever sees complete packs. Packs are not fsynced (a SIGKILL keeps what was written; a power cut
 * may not): every object is checked against its hash when it is read, and a restore reads and checks all of
 * them before it changes a single file.
 */
import * as crypto from 'node:crypto';
import { randomBytes, createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface ObjectLocation {
  pack: string;
  offset: number;
  length: number;
}

type OneShotHash = (algorithm: string, data: Uint8Array, encoding: 'hex') => string;
/** `crypto.hash` (Node ≥ 20.12, Electron's Node): one call, no Hash object — a third of createHash's CPU for 10 KB files. */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

export const sha256: (data: Uint8Array) => string =
  typeof oneShot === 'function' ? (data) => oneShot('sha256', data, 'hex') : (data) => createHash('sha256').update(data).digest('hex');

export class CorruptObjectError extends Error {
  override name = 'CorruptObjectError';
}

const newId = () => `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;

/** Bytes a PackWriter gathers before one write (a first snapshot: ≈ 100 writes for 100 MB instead of 10 000). */
const PACK_BUFFER_BYTES = 1024 * 1024;

/**
 * Appends new contents to one temporary pack; `commit` makes it visible, `abort` throws it away. Contents are copied
 * into a buffer and written a megabyte at a time (`add` may be given a buffer its caller reuses); `close` writes the rest.
 */
export class PackWriter {
  private readonly tmp: string;
  private fd: number | undefined;
  private offset = 0;
  private buf: Buffer | undefined;
  /** Bytes of `buf` not written yet. */
  private buffered = 0;
  readonly written = new Map<string, ObjectLocation>();

  constructor(
    private readonly dir: string,
    readonly id = newPackId(),
  ) {
    if (!PACK_ID.test(id)) throw new Error(`Not a pack id: ${JSON.stringify(id.slice(0, 80))}`);
    this.tmp = tmpPackPath(dir, id);
  }

  add(hash: string, data: Uint8Array): void {
    if (this.written.has(hash)) return;
    this.fd ??= openSync(this.tmp, 'w', 0o600);
    if (this.buffered + data.length > PACK_BUFFER_BYTES) this.flush();
    if (data.length >= PACK_BUFFER_BYTES) {
      writeAll(this.fd, data);
    } else {
      this.buf ??= Buffer.allocUnsafeSlow(PACK_BUFFER_BYTES);
      this.buf.set(data, this.buffered);
      this.buffered += data.length;
    }
    this.written.set(hash, { pack: this.id, offset: this.offset, length: data.length });
    this.offset += data.length;
  }

  /** Writes what is buffered. */
  private flush(): void {
    if (this.buffered === 0 || this.fd === undefined) return;
    writeAll(this.fd, this.buf!.subarray(0, this.buffered));
    this.buffered = 0;
  }

  get size(): number {
    return this.offset;
  }

  /** Closes the temporary pack without making it visible (another thread commits it: commitPack). */
  close(): void {
    if (this.fd !== undefined) {
      try {
        this.flush();
      } finally {
        closeSync(this.fd);
        this.fd = undefined;
        this.buf = undefined;
      }
    }
  }

  /** Renames the pack into place, then writes its index: from here on the objects are readable. */
  commit(): void {
    if (this.fd === undefined) return;
    this.close();
    commitPack(this.dir, this.id, this.written);
  }

  abort(): void {
    this.buffered = 0; // nothing more to write: the file goes
    this.close();
    abortPack(this.dir, this.id);
  }
}

function writeAll(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

const PACK_ID = /^[0-9a-z]+-[0-9a-f]{12}$/;
export const newPackId = (): string => newId();
const tmpPackPath = (dir: string, id: string) => path.join(dir, `tmp-${id}.pack`);

/**
 * Makes the temporary pack `id` (written and closed, by this thread or a worker) visible: renamed into place, then
 * its index written. Throws when the temporary file is gone (swept by a recovery meanwhile): nothing is visible then.
 */
export function commitPack(dir: string, id: string, written: ReadonlyMap<string, ObjectLocation>): void {
  if (!PACK_ID.test(id)) throw new Error(`Not a pack id: ${JSON.stringify(id.slice(0, 80))}`);
  renameSync(tmpPackPath(dir, id), path.join(dir, `${id}.pack`));
  const idx = [...written].map(([h, l]) => [h, l.offset, l.length]);
  const tmpIdx = path.join(dir, `tmp-${id}.idx`);
  writeFileSync(tmpIdx, JSON.stringify(idx), { mode: 0o600 });
  renameSync(tmpIdx, path.join(dir, `${id}.idx`));
}

/** Removes a temporary pack that will not be committed. */
export function abortPack(dir: string, id: string): void {
  if (!PACK_ID.test(id)) return;
  try {
    unlinkSync(tmpPackPath(dir, id));
  } catch {
    /* never created */
  }
}

const validRow = (r: unknown, packSize: number): boolean => {
  if (!Array.isArray(r) || r.length !== 3) return false;
  const [h, offset, length] = r as unknown[];
  return typeof h === 'string' && /^[0-9a-f]{64}$/.test(h) && Number.isSafeInteger(offset) && Number.isSafeInteger(length) && (offset as number) >= 0 && (length as number) >= 0 && (offset as number) + (length as number) <= packSize;
};

/** Where every object is, from the index files on disk (re-read under the store lock before each operation). */
export class ObjectIndex {
  private readonly byHash = new Map<string, ObjectLocation>();
  private readonly packs = new Map<string, Map<string, ObjectLocation>>();

  constructor(readonly dir: string) {}

  /** Loads indexes added by other processes and forgets packs removed by a collection. */
  refresh(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      names = [];
    }
    const present = new Set(names.filter((n) => n.endsWith('.idx') && !n.startsWith('tmp-')).map((n) => n.slice(0, -4)));
    for (const pack of [...this.packs.keys()]) if (!present.has(pack)) this.forget(pack);
    for (const pack of present) {
      if (this.packs.has(pack)) continue;
      let packSize: number;
      try {
        packSize = statSync(path.join(this.dir, `${pack}.pack`)).size;
      } catch {
        continue;
      }
      let rows: unknown;
      try {
        rows = JSON.parse(readFileSync(path.join(this.dir, `${pack}.idx`), 'utf8'));
      } catch {
        continue; // unreadable index: its pack is unknown (and swept as garbage)
      }
      // A damaged index (rows past the pack's end, not hashes…) makes the pack unknown rather than a reader allocate
      // what a row claims or read another pack's bytes: its objects are then "missing", refused before a restore.
      if (!Array.isArray(rows) || !rows.every((r) => validRow(r, packSize))) continue;
      this.addPack(pack, (rows as [string, number, number][]).map(([h, offset, length]) => [h, { pack, offset, length }]));
    }
  }

  addPack(pack: string, rows: Iterable<[string, ObjectLocation]>): void {
    const map = new Map(rows);
    this.packs.set(pack, map);
    for (const [h, loc] of map) if (!this.byHash.has(h)) this.byHash.set(h, loc);
  }

  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  get(hash: string): ObjectLocation | undefined {
    return this.byHash.get(hash);
  }

  packIds(): string[] {
    return [...this.packs.keys()];
  }

  objectsOf(pack: string): ReadonlyMap<string, ObjectLocation> {
    return this.packs.get(pack) ?? new Map();
  }

  /** Drops a pack; an object it shared with another pack stays reachable there. */
  forget(pack: string): void {
    const gone = this.packs.get(pack);
    this.packs.delete(pack);
    if (!gone) return;
    for (const h of gone.keys()) {
      if (this.byHash.get(h)?.pack !== pack) continue;
      this.byHash.delete(h);
      for (const other of this.packs.values()) {
        const loc = other.get(h);
        if (loc) {
          this.byHash.set(h, loc);
          break;
        }
      }
    }
  }
}

/** Reads objects by hash, checking each against its hash. Keeps one descriptor per pack until `close`. */
export class ObjectReader {
  private readonly fds = new Map<string, number>();

  constructor(private readonly index: ObjectIndex) {}

  read(hash: string): Buffer {
    const loc = this.index.get(hash);
    if (!loc) throw new CorruptObjectError(`The checkpoint store is missing the content ${hash.slice(0, 12)}.`);
    let fd = this.fds.get(loc.pack);
    if (fd === undefined) {
      fd = openSync(path.join(this.index.dir, `${loc.pack}.pack`), 'r');
      this.fds.set(loc.pack, fd);
    }
    const buf = Buffer.allocUnsafe(loc.length);
    let got = 0;
    while (got < loc.length) {
      const n = readSync(fd, buf, got, loc.length - got, loc.offset + got);
      if (n === 0) break;
      got += n;
    }
    if (got !== loc.length || sha256(buf) !== hash) {
      throw new CorruptObjectError(`The checkpoint store holds a damaged copy of ${hash.slice(0, 12)} (pack ${loc.pack}).`);
    }
    return buf;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
