/**
 * X2: trees on disk (`trees/<id>.json.gz`). The first tree of a workspace is stored whole; a later one as a delta
 * against the whole tree the previous one is based on (the entries that changed — content or stat — and the paths
 * that went away), so a later snapshot of 10 000 unchanged files writes a few hundred bytes instead of re-encoding
 * and compressing 2 MB, and reading any tree back is one whole tree plus at most one delta. When the changes since
 * that base pass a quarter of the entries (16 for small trees), the tree is stored whole again and becomes the next
 * base. A tree's id is the sha256 of its stored text; a delta names its base, which garbage collection keeps alive
 * with it (`baseOf`). A whole tree also gets a binary copy (`<id>.bin`, tree-bin.ts), read instead of its JSON when
 * it is intact (a new process reads its last tree's base ≈ 3× faster); a store written before it has none until
 * the next snapshot that builds on such a base writes it.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CorruptObjectError } from './objects.js';
import { decodeTreeBin, encodeTreeBin } from './tree-bin.js';
import { encodeTree, isObjectId, treeId, treeProblem, TREE_VERSION, type SkippedEntry, type Tree, type TreeEntry } from './tree.js';

interface DeltaFile {
  v: 1;
  base: string;
  root: string;
  takenAt: number;
  set: TreeEntry[];
  del: string[];
  skipped: SkippedEntry[];
}

const sameStat = (a: TreeEntry, b: TreeEntry) =>
  a === b ||
  (a.k === b.k && a.m === b.m && a.h === b.h && a.t === b.t && a.s === b.s && a.mt === b.mt && a.ct === b.ct && a.ino === b.ino);

/** Entries of `next` that differ from `prev` (all fields), and paths of `prev` that `next` lacks. Pure. */
export function treeDelta(prev: readonly TreeEntry[], next: readonly TreeEntry[]): { set: TreeEntry[]; del: string[] } {
  const set: TreeEntry[] = [];
  const del: string[] = [];
  let i = 0;
  let j = 0;
  while (i < prev.length || j < next.length) {
    const a = prev[i];
    const b = next[j];
    if (b === undefined || (a !== undefined && a.p < b.p)) {
      del.push(a!.p);
      i++;
    } else if (a === undefined || b.p < a.p) {
      set.push(b);
      j++;
    } else {
      if (!sameStat(a, b)) set.push(b);
      i++;
      j++;
    }
  }
  return { set, del };
}

/** `base` with a delta applied (both sorted by path). Pure. */
export function applyDelta(base: readonly TreeEntry[], set: readonly TreeEntry[], del: readonly string[]): TreeEntry[] {
  const gone = new Set(del);
  const out: TreeEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < base.length || j < set.length) {
    const a = base[i];
    const b = set[j];
    if (b === undefined || (a !== undefined && a.p < b.p)) {
      if (!gone.has(a!.p)) out.push(a!);
      i++;
    } else if (a === undefined || b.p < a.p) {
      out.push(b);
      j++;
    } else {
      out.push(b);
      i++;
      j++;
    }
  }
  return out;
}

/** A tree as stored (`TreeFiles.stored`): its entries (a whole tree, or a delta held materialised), or a delta's parts. */
export type StoredTree = { entries: readonly TreeEntry[]; base?: string } | { base: string; set: readonly TreeEntry[]; del: readonly string[] };

/** A tree as read (and cached): `checked` once treeProblem passed on it; `binned` once its binary copy is known to be
 * on disk or was offered for writing (whole trees only). */
interface Entry {
  tree: Tree;
  base?: string;
  checked: boolean;
  binned?: boolean;
}

/** A binary copy of whole tree `id` to write beside its JSON (tree-bin.ts). */
export interface TreeBin {
  id: string;
  bytes: Uint8Array;
}

export const gzipTree = (text: string): Buffer => gzipSync(text, { level: 1 });

export class TreeFiles {
  private readonly cache = new Map<string, Entry>();

  /** `cached`: trees kept in memory (the checkpoint worker needs only the last tree and its base). */
  constructor(
    private readonly dir: string,
    private readonly cached = 12,
  ) {}

  private file(id: string) {
    return path.join(this.dir, `${id}.json.gz`);
  }

  private binFile(id: string) {
    return path.join(this.dir, `${id}.bin`);
  }

  /** The tree of a whole tree's binary copy, if there is one and it is intact (else its JSON is read). */
  private readBin(id: string): Tree | undefined {
    let buf: Buffer;
    try {
      buf = readFileSync(this.binFile(id));
    } catch {
      return undefined;
    }
    return decodeTreeBin(id, buf);
  }

  private remember(id: string, v: Entry) {
    if (this.cache.size >= this.cached) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(id, v);
  }

  /**
   * A tree from its file. What a damaged or crafted store could hold is refused with a CorruptObjectError before
   * anything uses it: an id that is not a sha256 (a path), a delta on a delta (a loop), entries a restore must not
   * write (treeProblem: "..", `.git`, a path under a symlink…).
   */
  private loadEntry(id: string, asBase = false, check = true): Entry {
    const hit = this.cache.get(id);
    if (hit) {
      if (asBase && hit.base !== undefined) throw new CorruptObjectError(`The checkpoint store holds a damaged tree ${id.slice(0, 12)} (a delta on a delta).`);
      if (check && !hit.checked) {
        const problem = treeProblem(hit.tree);
        if (problem) throw new CorruptObjectError(`The checkpoint store holds a damaged tree ${id.slice(0, 12)} (${problem}).`);
        hit.checked = true;
      }
      return hit;
    }
    if (!isObjectId(id)) throw new CorruptObjectError(`The checkpoint store names a tree that cannot exist (${JSON.stringify(String(id).slice(0, 80))}).`);
    const damaged = (why: string) => new CorruptObjectError(`The checkpoint store holds a damaged tree ${id.slice(0, 12)} (${why}).`);
    const fromBin = this.readBin(id);
    if (fromBin) return this.accept(id, { tree: fromBin, checked: false, binned: true }, check, damaged);
    let raw: (Tree | DeltaFile) | null;
    try {
      raw = JSON.parse(gunzipSync(readFileSync(this.file(id))).toString('utf8')) as Tree | DeltaFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
      throw new CorruptObjectError(`The checkpoint store holds a damaged tree ${id.slice(0, 12)} (${(err as Error).message.split('\n')[0]}).`);
    }
    if (!raw || typeof raw !== 'object') throw damaged('not a tree');
    let v: Entry;
    if ('base' in raw && raw.base !== undefined) {
      // A delta is always stored against a whole tree: one level, never a chain or a loop.
      if (asBase) throw damaged('a delta on a delta');
      if (!isObjectId(raw.base) || raw.base === id || !Array.isArray(raw.set) || !Array.isArray(raw.del)) throw damaged('a bad delta');
      const base = this.loadEntry(raw.base, true, false);
      v = {
        tree: { v: TREE_VERSION, root: raw.root, takenAt: raw.takenAt, entries: applyDelta(base.tree.entries, raw.set, raw.del), skipped: raw.skipped ?? [] },
        base: raw.base,
        checked: false,
      };
    } else {
      const whole = raw as Tree;
      if (whole.v !== TREE_VERSION || !Array.isArray(whole.entries)) throw new Error(`Unsupported checkpoint tree ${id} (version ${String(whole.v)}).`);
      v = { tree: { ...whole, skipped: Array.isArray(whole.skipped) ? whole.skipped : [] }, checked: false, binned: false };
    }
    return this.accept(id, v, check, damaged);
  }

  /** The checks every tree read back passes (and treeProblem when `check`), then kept in the cache. */
  private accept(id: string, v: Entry, check: boolean, damaged: (why: string) => Error): Entry {
    if (typeof v.tree.root !== 'string' || !path.isAbsolute(v.tree.root)) throw damaged('no workspace');
    if (!Array.isArray(v.tree.entries) || !v.tree.entries.every((e) => typeof e === 'object' && e !== null && typeof e.p === 'string')) throw damaged('bad entries');
    if (check) {
      const problem = treeProblem(v.tree);
      if (problem) throw damaged(problem);
      v.checked = true;
    }
    this.remember(id, v);
    return v;
  }

  load(id: string): Tree {
    return this.loadEntry(id).tree;
  }

  /**
   * A tree for the next snapshot's stat cache and delta only, without the per-path checks (a fifth of a new
   * process's snapshot). Safe: its paths are only compared with paths the scan found in the folder, and nothing is
   * written from it — any tree built on it is checked when `load` reads it for a restore, a preview or a diff.
   */
  loadForCache(id: string): Tree {
    return this.loadEntry(id, false, false).tree;
  }

  /**
   * A tree as stored, for garbage collection: a whole tree's entries, or a delta's base with its changes — neither
   * materialised nor checked (collection only reads content hashes and base ids from it, to keep things alive;
   * nothing is written or restored from it). A tree this process holds in memory comes as it is held (`entries`,
   * with its base when it is a delta). Throws as `load` does for a missing or unreadable file.
   */
  stored(id: string): StoredTree {
    const hit = this.cache.get(id);
    if (hit) return { entries: hit.tree.entries, ...(hit.base !== undefined ? { base: hit.base } : {}) };
    if (!isObjectId(id)) throw new CorruptObjectError(`The checkpoint store names a tree that cannot exist (${JSON.stringify(String(id).slice(0, 80))}).`);
    const damaged = (why: string) => new CorruptObjectError(`The checkpoint store holds a damaged tree ${id.slice(0, 12)} (${why}).`);
    const fromBin = this.readBin(id);
    if (fromBin) return { entries: fromBin.entries };
    let raw: (Tree | DeltaFile) | null;
    try {
      raw = JSON.parse(gunzipSync(readFileSync(this.file(id))).toString('utf8')) as Tree | DeltaFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
      throw damaged((err as Error).message.split('\n')[0]!);
    }
    if (!raw || typeof raw !== 'object') throw damaged('not a tree');
    if ('base' in raw && raw.base !== undefined) {
      if (!isObjectId(raw.base) || raw.base === id || !Array.isArray(raw.set) || !Array.isArray(raw.del)) throw damaged('a bad delta');
      return { base: raw.base, set: raw.set, del: raw.del };
    }
    if (!Array.isArray((raw as Tree).entries)) throw damaged('bad entries');
    return { entries: (raw as Tree).entries };
  }

  /** The tree a delta is stored against (undefined for a whole tree). */
  baseOf(id: string): string | undefined {
    return this.loadEntry(id).base;
  }

  /**
   * The stored form of `tree`: a delta against the base of `previousId` (or `previousId` itself when whole), else the
   * whole tree; its id is the sha256 of that text. Nothing is written (a worker thread prepares it, see prepare.ts).
   */
  encode(tree: Tree, previousId?: string): { id: string; text: string; base?: string; bins: TreeBin[] } {
    let text: string | undefined;
    let base: string | undefined;
    const bins: TreeBin[] = [];
    if (previousId) {
      try {
        const prev = this.loadEntry(previousId, false, false);
        const baseId = prev.base ?? previousId;
        const wholeEntry = prev.base ? this.loadEntry(prev.base, true, false) : prev;
        const whole = wholeEntry.tree;
        if (whole.root === tree.root) {
          const d = treeDelta(whole.entries, tree.entries);
          if (d.set.length + d.del.length <= Math.max(16, tree.entries.length / 4)) {
            base = baseId;
            // A base read from its JSON (a store from before the binary copies, or a damaged copy): its copy is
            // offered once with this tree, so the next process reads it fast.
            if (!wholeEntry.binned) {
              wholeEntry.binned = true;
              const bytes = encodeTreeBin(baseId, whole);
              if (bytes) bins.push({ id: baseId, bytes });
            }
            const delta: DeltaFile = { v: 1, base, root: tree.root, takenAt: tree.takenAt, set: d.set, del: d.del, skipped: tree.skipped };
            text = JSON.stringify(delta);
          }
        }
      } catch {
        text = undefined; // the previous tree is unreadable: store this one whole
      }
    }
    if (text === undefined) {
      text = encodeTree(tree);
      const id = treeId(text);
      const bytes = encodeTreeBin(id, tree);
      return { id, text, bins: bytes ? [{ id, bytes }] : [] };
    }
    return { id: treeId(text), text, ...(base ? { base } : {}), bins };
  }

  /**
   * Writes an encoded tree's file (gzip of its text) unless it is there already, then the binary copies that came
   * with it (its own when whole, its base's when that had none) — after the JSON, and only beside a JSON that is
   * there: a copy never stands for a tree without its record.
   */
  write(id: string, gz: Uint8Array, bins: readonly TreeBin[] = []): void {
    if (!isObjectId(id)) throw new CorruptObjectError(`Not a tree id: ${JSON.stringify(String(id).slice(0, 80))}.`);
    const file = this.file(id);
    if (!existsSync(file)) this.writeAtomic(file, id, gz);
    for (const bin of bins) {
      if (!isObjectId(bin.id) || !existsSync(this.file(bin.id))) continue;
      this.writeAtomic(this.binFile(bin.id), bin.id, bin.bytes);
      const cached = this.cache.get(bin.id);
      if (cached) cached.binned = true;
    }
  }

  private writeAtomic(file: string, id: string, bytes: Uint8Array): void {
    const tmp = path.join(this.dir, `tmp-${id}-${randomBytes(4).toString('hex')}`);
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** Removes a tree's files: its binary copy first, so a kill between the two never leaves a copy without its JSON. */
  remove(id: string): void {
    if (!isObjectId(id)) return;
    rmSync(this.binFile(id), { force: true });
    rmSync(this.file(id), { force: true });
    this.forget(id);
  }

  /** Keeps a tree this process holds (the next snapshot's stat cache) without reading it back. */
  keep(id: string, tree: Tree, base?: string): void {
    // Built from a scan of the folder (every path a real child): the same as checked. A whole tree's copy was
    // written (or offered) with it.
    this.remember(id, { tree, ...(base ? { base } : {}), checked: true, ...(base ? {} : { binned: true }) });
  }

  /** Stores `tree` (encode + write); returns its id. */
  save(tree: Tree, previousId?: string): string {
    const { id, text, base, bins } = this.encode(tree, previousId);
    this.write(id, gzipTree(text), bins);
    this.keep(id, tree, base);
    return id;
  }

  forget(id: string): void {
    this.cache.delete(id);
  }
}
