/**
 * X2: trees on disk (`trees/<id>.json.gz`). The first tree of a workspace is stored whole; a later one as a delta
 * against the previous tree of that workspace (the entries that changed — content or stat — and the paths that went
 * away), so a later snapshot of 10 000 unchanged files writes a few hundred bytes instead of re-encoding and
 * compressing 2 MB. A chain is cut at DELTA_DEPTH (then, or when a quarter of the entries changed, the tree is
 * whole again; small trees are deltas up to 16 changes). A tree's id is the sha256 of its stored text; a delta names its base, which garbage collection
 * keeps alive with it (`baseOf`).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { encodeTree, treeId, TREE_VERSION, type SkippedEntry, type Tree, type TreeEntry } from './tree.js';

export const DELTA_DEPTH = 16;

interface DeltaFile {
  v: 1;
  base: string;
  depth: number;
  root: string;
  takenAt: number;
  set: TreeEntry[];
  del: string[];
  skipped: SkippedEntry[];
}

const sameStat = (a: TreeEntry, b: TreeEntry) =>
  a.k === b.k && a.m === b.m && a.h === b.h && a.t === b.t && a.s === b.s && a.mt === b.mt && a.ct === b.ct && a.ino === b.ino;

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

export class TreeFiles {
  private readonly cache = new Map<string, { tree: Tree; depth: number; base?: string }>();

  constructor(private readonly dir: string) {}

  private file(id: string) {
    return path.join(this.dir, `${id}.json.gz`);
  }

  private remember(id: string, v: { tree: Tree; depth: number; base?: string }) {
    if (this.cache.size > 12) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(id, v);
  }

  private loadEntry(id: string): { tree: Tree; depth: number; base?: string } {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const raw = JSON.parse(gunzipSync(readFileSync(this.file(id))).toString('utf8')) as Tree | DeltaFile;
    let v: { tree: Tree; depth: number; base?: string };
    if ('base' in raw && typeof raw.base === 'string') {
      const base = this.loadEntry(raw.base);
      v = {
        tree: { v: TREE_VERSION, root: raw.root, takenAt: raw.takenAt, entries: applyDelta(base.tree.entries, raw.set, raw.del), skipped: raw.skipped ?? [] },
        depth: raw.depth,
        base: raw.base,
      };
    } else {
      const whole = raw as Tree;
      if (whole.v !== TREE_VERSION || !Array.isArray(whole.entries)) throw new Error(`Unsupported checkpoint tree ${id} (version ${String(whole.v)}).`);
      v = { tree: { ...whole, skipped: whole.skipped ?? [] }, depth: 0 };
    }
    this.remember(id, v);
    return v;
  }

  load(id: string): Tree {
    return this.loadEntry(id).tree;
  }

  /** The tree a delta is stored against (undefined for a whole tree). */
  baseOf(id: string): string | undefined {
    return this.loadEntry(id).base;
  }

  /** Stores `tree`, as a delta against `previous` when that is shorter; returns its id. */
  save(tree: Tree, previousId?: string): string {
    let text: string | undefined;
    let depth = 0;
    let base: string | undefined;
    if (previousId) {
      try {
        const prev = this.loadEntry(previousId);
        if (prev.tree.root === tree.root && prev.depth < DELTA_DEPTH) {
          const d = treeDelta(prev.tree.entries, tree.entries);
          if (d.set.length + d.del.length <= Math.max(16, tree.entries.length / 4)) {
            depth = prev.depth + 1;
            base = previousId;
            const delta: DeltaFile = { v: 1, base, depth, root: tree.root, takenAt: tree.takenAt, set: d.set, del: d.del, skipped: tree.skipped };
            text = JSON.stringify(delta);
          }
        }
      } catch {
        text = undefined; // the previous tree is unreadable: store this one whole
      }
    }
    text ??= encodeTree(tree);
    const id = treeId(text);
    const file = this.file(id);
    if (!existsSync(file)) {
      const tmp = path.join(this.dir, `tmp-${id}-${randomBytes(4).toString('hex')}`);
      writeFileSync(tmp, gzipSync(text, { level: 1 }), { mode: 0o600 });
      renameSync(tmp, file);
    }
    this.remember(id, { tree, depth, ...(base ? { base } : {}) });
    return id;
  }

  forget(id: string): void {
    this.cache.delete(id);
  }
}
