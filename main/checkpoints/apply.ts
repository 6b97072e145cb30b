/**
 * X2: makes the workspace match a recorded tree. Input: the tree of what is there now (just captured, so every
 * file has its hash) and the target tree. Only captured paths are touched: ignored files, `.git`, `node_modules`
 * and files a snapshot skipped are left as they are.
 *
 * - Every object the target needs is read and checked against its hash first; a damaged store refuses the restore
 *   before a single file changes.
 * - Each file and symlink is written under a temporary name in its folder and renamed over the old one, so every
 *   path is whole-old or whole-new at any instant; the caller's journal makes the tree as a whole all-or-nothing
 *   (store.ts rolls an interrupted restore forward at the next start).
 * - Nothing is followed: symlinks are recreated as symlinks with their recorded text; a folder on the way to a file
 *   is checked with lstat and a symlink or file in its place is moved aside, never written through.
 * - Modes are restored (folders last, deepest first, so a read-only folder is filled before it is locked).
 * - Something not captured that stands where the target needs a folder or file (a folder with ignored files in
 *   it) is renamed to `<name>.agentdesk-kept-<time>` and reported, never deleted.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fchmodSync, lstatSync, mkdirSync, openSync, renameSync, rmdirSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ObjectReader } from './objects.js';
import { yielder } from './scan.js';
import { diffTrees, summarizeChanges, type Tree, type TreeEntry } from './tree.js';

export interface ApplyReport {
  modified: number;
  created: number;
  deleted: number;
  /** Paths moved aside because something not captured stood in the way. */
  keptAside: string[];
  /** Folders left in place because they still hold files a checkpoint does not capture. */
  keptFolders: string[];
}

const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException)?.code === code;

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return undefined;
    throw err;
  }
}

const tmpName = (dir: string) => path.join(dir, `.agentdesk-restore-${randomBytes(6).toString('hex')}`);

export async function applyTree(
  root: string,
  current: Pick<Tree, 'entries'>,
  target: Pick<Tree, 'entries'>,
  reader: ObjectReader,
  now: () => number = Date.now,
): Promise<ApplyReport> {
  const changes = diffTrees(current, target);
  const pause = yielder();
  const report: ApplyReport = { ...summarizeChanges(changes), keptAside: [], keptFolders: [] };
  const abs = (rel: string) => path.join(root, rel);

  // 1. Every content the target needs, read and checked before anything changes.
  for (const c of changes) {
    if (c.to?.k === 'f' && c.to.h !== c.from?.h) {
      reader.read(c.to.h!);
      const wait = pause();
      if (wait) await wait;
    }
  }

  const moveAside = (rel: string) => {
    const aside = `${abs(rel)}.agentdesk-kept-${now()}`;
    renameSync(abs(rel), aside);
    report.keptAside.push(path.relative(root, aside));
  };

  // 2. Removals, deepest first: what the target does not have, and what changes kind.
  const removals = changes.filter((c) => c.from && (!c.to || c.to.k !== c.from.k));
  for (let i = removals.length - 1; i >= 0; i--) {
    const c = removals[i]!;
    const p = abs(c.path);
    const st = lstatOrUndefined(p);
    if (!st) continue;
    if (st.isDirectory()) {
      try {
        rmdirSync(p);
      } catch (err) {
        if (!isCode(err, 'ENOTEMPTY') && !isCode(err, 'EEXIST')) throw err;
        if (c.to) moveAside(c.path);
        else report.keptFolders.push(c.path);
      }
    } else {
      unlinkSync(p);
    }
    const wait = pause();
    if (wait) await wait;
  }

  // 3. Folders, files and symlinks of the target, parents first (a parent's path sorts before its children's).
  const ensureDir = (rel: string) => {
    const st = lstatOrUndefined(abs(rel));
    if (st?.isDirectory()) return;
    if (st) moveAside(rel);
    mkdirSync(abs(rel), { mode: 0o700 });
  };
  const writeFileEntry = (e: TreeEntry) => {
    const p = abs(e.p);
    const st = lstatOrUndefined(p);
    if (st?.isDirectory()) moveAside(e.p);
    const data = reader.read(e.h!);
    const tmp = tmpName(path.dirname(p));
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      let done = 0;
      while (done < data.length) done += writeSync(fd, data, done, data.length - done);
      fchmodSync(fd, e.m);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, p);
  };
  const writeLink = (e: TreeEntry) => {
    const p = abs(e.p);
    const st = lstatOrUndefined(p);
    if (st?.isDirectory()) moveAside(e.p);
    const tmp = tmpName(path.dirname(p));
    symlinkSync(e.t!, tmp);
    renameSync(tmp, p);
  };
  const dirModes: TreeEntry[] = [];
  for (const c of changes) {
    const e = c.to;
    if (!e) continue;
    const wait = pause();
    if (wait) await wait;
    if (e.k === 'd') {
      ensureDir(e.p);
      dirModes.push(e);
    } else if (e.k === 'f') {
      if (c.from?.k === 'f' && c.from.h === e.h) chmodSync(abs(e.p), e.m);
      else writeFileEntry(e);
    } else if (c.from?.k !== 'l' || c.from.t !== e.t) {
      writeLink(e);
    }
  }
  // 4. Folder modes last, deepest first.
  for (let i = dirModes.length - 1; i >= 0; i--) chmodSync(abs(dirModes[i]!.p), dirModes[i]!.m);
  return report;
}
