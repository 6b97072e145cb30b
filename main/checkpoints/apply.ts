/**
 * X2: makes the workspace match a recorded tree. Input: the tree of what is there now (just captured, so every
 * file has its hash) and the target tree. Only captured paths are touched: ignored files, `.git`, `node_modules`
 * and files a snapshot skipped are left as they are.
 *
 * - Every object the target needs is read and checked against its hash first; a damaged store refuses the restore
 *   before a single file changes.
 * - Each file and symlink is written under a temporary name in its folder and renamed over the old one, so every
 *   path is whole-old or whole-new at any instant; the caller's journal makes the tree as a whole all-or-nothing
 *   (recovery.ts rolls an interrupted restore forward at the next start).
 * - Nothing is followed (workspace-fs.ts): every folder on the way to a path is reached without following a link —
 *   also when one is swapped in while the restore runs — and symlinks are recreated as symlinks with their recorded
 *   text; a symlink or file standing where a folder has to be is moved aside, never written through. Modes are set
 *   on what is there, never on what a link points to.
 * - Modes are restored (folders last, deepest first, so a read-only folder is filled before it is locked), without
 *   setuid / setgid (as git does: a restore never hands out a program that runs with its owner's rights).
 * - Something not captured that stands where the target needs a folder, file or symlink (a folder with ignored
 *   files in it; a file ignored by the .gitignore of now, or over the size cap) is renamed to
 *   `<name>.agentdesk-kept-<time>` (a long name cut to fit, kept-name.ts) and reported, never deleted nor written over: the restore's own checkpoint of the
 *   folder does not hold it, so no undo could bring it back (`uncapturedInTheWay` lists those files beforehand: the
 *   restore records their new names, its undo leaves them alone and moves them back, `moveBack`).
 * - Paths the target's checkpoint skipped (too large, special, unreadable then) and paths in `keep` are left as they
 *   are, with everything under them.
 */
import { fsErrorText } from '../errors/fs-errors.js';
import type { ObjectReader } from './objects.js';
import { yielder } from './scan.js';
import { badEntryPath, diffTrees, summarizeChanges, type Tree, type TreeChange, type TreeEntry } from './tree.js';
import { keptAsideOrigin } from './kept-name.js';
import { WorkspaceFs } from './workspace-fs.js';

/** `p` is one of `set` or under one (`.` in `set`: every path). */
function within(set: ReadonlySet<string>, p: string): boolean {
  if (set.has('.')) return true;
  for (let q = p; ; ) {
    if (set.has(q)) return true;
    const slash = q.lastIndexOf('/');
    if (slash < 0) return false;
    q = q.slice(0, slash);
  }
}

/**
 * What a restore from `current` to `target` changes: the diff without the paths it leaves alone — those the target's
 * checkpoint skipped and those in `keep` — nor anything under them; and in a folder that checkpoint did not finish
 * (the entry cap), nothing it does not hold is removed (it may have been there, unrecorded).
 */
export function restoreChanges(current: Pick<Tree, 'entries'>, target: Pick<Tree, 'entries'> & { skipped?: Tree['skipped'] }, keep: readonly string[] = []): TreeChange[] {
  const changes = diffTrees(current, target);
  const skipped = target.skipped ?? [];
  const left = new Set([...skipped.filter((s) => s.reason !== 'entry-cap').map((s) => s.p), ...keep]);
  const unfinished = new Set(skipped.filter((s) => s.reason === 'entry-cap').map((s) => s.p));
  if (left.size === 0 && unfinished.size === 0) return changes;
  return changes.filter((c) => !within(left, c.path) && !(c.from && !c.to && unfinished.size > 0 && within(unfinished, c.path)));
}

/**
 * Paths `target` would write where something stands that `current` (the restore's checkpoint of the folder now) does
 * not hold — a file ignored by a .gitignore now, over a size cap, a FIFO, an ignored folder where a file goes: its
 * state is in no checkpoint, so it is moved aside, not written over (a folder where a folder goes is kept, merged).
 */
export function uncapturedInTheWay(root: string, current: Pick<Tree, 'entries'>, target: Pick<Tree, 'entries'> & { skipped?: Tree['skipped'] }): string[] {
  const out: string[] = [];
  let fs: WorkspaceFs | undefined;
  try {
    for (const c of restoreChanges(current, target)) {
      if (c.from || !c.to) continue;
      fs ??= new WorkspaceFs(root);
      let st;
      try {
        st = fs.lstat(c.path);
      } catch {
        continue; // a folder on the way cannot be searched: the restore's write there fails and says so
      }
      if (st && !(c.to.k === 'd' && st.isDirectory())) out.push(c.path); // a folder where one goes stays, merged
    }
  } finally {
    fs?.close();
  }
  return out;
}

export interface ApplyReport {
  modified: number;
  created: number;
  deleted: number;
  /** Paths moved aside because something not captured stood in the way (new names)… */
  keptAside: string[];
  /** …and the path each was moved from. */
  keptFrom: Record<string, string>;
  /** Folders left in place because they still hold files a checkpoint does not capture. */
  keptFolders: string[];
}

const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException)?.code === code;

/** A step of a restore that failed, with the workspace-relative path it was at (never a /proc/self/fd path). */
export class ApplyStepError extends Error {
  override name = 'ApplyStepError';
  constructor(
    readonly path: string,
    override readonly cause: unknown,
    /** What the restore had moved aside before the step failed, new name → old (a failed restore records it: its undo moves it back). */
    readonly kept: Readonly<Record<string, string>> = {},
  ) {
    const code = (cause as NodeJS.ErrnoException)?.code;
    super(`${path}: ${fsErrorText(cause) ?? code ?? String((cause as Error)?.message ?? cause).split('\n')[0]}`);
  }
}

/** Permission bits a restore sets: setuid and setgid are never restored. */
const restoredMode = (m: number): number => m & 0o1777;

/**
 * Puts back what a restore moved aside (`asides`, named with its time stamp `at`): the undo of that restore, or a
 * failed restore put back. Over what stands there only if `captured` (the undo's checkpoint of the folder) holds it
 * as a file or symlink (no `captured`: over any file or symlink, what the failed restore wrote) — else the copy stays
 * where it is. `names`: the path each was moved from, as recorded (a long name is cut in its new one: kept-name.ts).
 * Names that are not such copies of a valid path are ignored (a crafted log).
 */
export function moveBack(root: string, asides: readonly string[], at: number, captured?: Pick<Tree, 'entries'>, names?: Readonly<Record<string, string>>): void {
  const overwritable = captured && new Set(captured.entries.filter((e) => e.k !== 'd').map((e) => e.p));
  const fs = new WorkspaceFs(root);
  try {
    for (const aside of asides) {
      if (typeof aside !== 'string') continue;
      const rel = keptAsideOrigin(aside, at, names && typeof names === 'object' ? names : undefined);
      if (rel === undefined || badEntryPath(rel) || badEntryPath(aside)) continue;
      const copy = fs.lstat(aside);
      const there = fs.lstat(rel);
      if ((there && (there.isDirectory() || (overwritable && !overwritable.has(rel)))) || !copy) continue;
      fs.rename(aside, rel);
    }
  } finally {
    fs.close();
  }
}

export async function applyTree(
  root: string,
  current: Pick<Tree, 'entries'>,
  target: Pick<Tree, 'entries'> & { skipped?: Tree['skipped'] },
  reader: Pick<ObjectReader, 'read'>,
  now: () => number = Date.now,
  keep: readonly string[] = [],
): Promise<ApplyReport> {
  const changes = restoreChanges(current, target, keep);
  const pause = yielder();
  const report: ApplyReport = { ...summarizeChanges(changes), keptAside: [], keptFrom: {}, keptFolders: [] };

  // 1. Every content the target needs, read and checked before anything changes.
  for (const c of changes) {
    if (c.to?.k === 'f' && c.to.h !== c.from?.h) {
      reader.read(c.to.h!);
      const wait = pause();
      if (wait) await wait;
    }
  }

  const fs = new WorkspaceFs(root, {
    now,
    onKeptAside: (aside, from) => {
      report.keptAside.push(aside);
      report.keptFrom[aside] = from;
    },
  });
  /** The path being changed: a step that fails is reported with it (ApplyStepError). */
  let at = '';
  try {
    // 2. Removals, deepest first: what the target does not have, and what changes kind.
    const removals = changes.filter((c) => c.from && (!c.to || c.to.k !== c.from.k));
    for (let i = removals.length - 1; i >= 0; i--) {
      const c = removals[i]!;
      at = c.path;
      const st = fs.lstat(c.path);
      if (!st) continue;
      if (st.isDirectory()) {
        try {
          fs.rmdir(c.path);
        } catch (err) {
          if (!isCode(err, 'ENOTEMPTY') && !isCode(err, 'EEXIST')) throw err;
          if (c.to) fs.moveAside(c.path);
          else report.keptFolders.push(c.path);
        }
      } else {
        fs.unlink(c.path);
      }
      const wait = pause();
      if (wait) await wait;
    }

    // 3. Folders, files and symlinks of the target, parents first (a parent's path sorts before its children's).
    const ensureDir = (rel: string) => {
      const st = fs.lstat(rel);
      if (st?.isDirectory()) return;
      if (st) fs.moveAside(rel);
      fs.mkdir(rel, 0o700);
    };
    /** Moves aside a folder in the way — or anything there when the capture of now does not hold the path. */
    const clearFor = (rel: string, captured: boolean) => {
      const st = fs.lstat(rel);
      if (st && (st.isDirectory() || !captured)) fs.moveAside(rel);
    };
    const writeFileEntry = (e: TreeEntry, captured: boolean) => {
      clearFor(e.p, captured);
      fs.writeFile(e.p, reader.read(e.h!), restoredMode(e.m));
    };
    const dirModes: TreeEntry[] = [];
    for (const c of changes) {
      const e = c.to;
      if (!e) continue;
      const wait = pause();
      if (wait) await wait;
      at = e.p;
      if (e.k === 'd') {
        ensureDir(e.p);
        dirModes.push(e);
      } else if (e.k === 'f') {
        // Same content, other mode: set it on the file that is there — or write it whole if something else is now.
        if (!(c.from?.k === 'f' && c.from.h === e.h && fs.chmod(e.p, restoredMode(e.m), 'f'))) writeFileEntry(e, c.from !== undefined);
      } else if (c.from?.k !== 'l' || c.from.t !== e.t) {
        clearFor(e.p, c.from !== undefined);
        fs.symlink(e.t!, e.p);
      }
    }
    // 4. Folder modes last, deepest first (a folder replaced meanwhile is left alone: nothing is followed).
    for (let i = dirModes.length - 1; i >= 0; i--) {
      at = dirModes[i]!.p;
      fs.chmod(at, restoredMode(dirModes[i]!.m), 'd');
    }
  } catch (err) {
    throw new ApplyStepError(at, err, report.keptFrom);
  } finally {
    fs.close();
  }
  return report;
}
