/**
 * X2: file operations inside a workspace that never follow a symlink on the way — neither one planted before a
 * snapshot or restore, nor one swapped in while it runs (a sandboxed command of another chat in the same folder can
 * replace `src/` with a link to `~` between two steps; a restore that wrote through it would write outside the
 * workspace, with the person's full rights).
 *
 * Linux: every folder on the way is opened on its own, from the workspace's descriptor down, with O_NOFOLLOW
 * (O_PATH: no read permission needed), and the last name is reached as `/proc/self/fd/<folder>/<name>`. The kernel
 * resolves that folder by its descriptor (openat semantics), so renaming or replacing a folder on the path cannot
 * redirect the operation; every operation on the last name (rename, unlink, rmdir, mkdir, symlink, open with
 * O_EXCL or O_NOFOLLOW, chmod through an O_PATH descriptor) does not follow a symlink there either.
 * Elsewhere (no /proc: macOS, Windows) every folder on the way is lstat-checked just before the operation and
 * modes are changed with lchmod where there is one: a race window remains there (said in the README).
 *
 * A path it returns (`/proc/self/fd/<n>/…`) is good only until its next call: folders are kept open in a bounded
 * cache, and a descriptor closed to make room may be reused for another folder.
 *
 * In "create" mode a folder on the way that is missing is made, and a file or symlink standing in its place is
 * renamed to `<name>.agentdesk-kept-<time>` (reported), never written through.
 */
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lchmodSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, renameSync, rmdirSync, symlinkSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { keptAsideName } from './kept-name.js';

/** O_PATH (Linux, every architecture Node runs on): a descriptor that names an inode without opening it. */
const O_PATH = 0o10000000;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const MAX_OPEN_DIRS = 128;

let procFd: boolean | undefined;
/** /proc/self/fd resolves descriptors here (Linux with /proc mounted). */
function procFdWorks(): boolean {
  if (procFd !== undefined) return procFd;
  procFd = false;
  if (process.platform !== 'linux') return procFd;
  try {
    const fd = openSync('/', O_PATH | O_DIRECTORY);
    try {
      procFd = lstatSync(`/proc/self/fd/${fd}/`).isDirectory();
    } finally {
      closeSync(fd);
    }
  } catch {
    procFd = false;
  }
  return procFd;
}

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

class PathChangedError extends Error {
  override name = 'PathChangedError';
}

function unlinkQuietly(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    /* gone already */
  }
}

/** Renames a temporary file over `to`; when that fails (a folder swapped in there), the temporary file goes. */
function renameOrDrop(tmp: string, to: string): void {
  try {
    renameSync(tmp, to);
  } catch (err) {
    unlinkQuietly(tmp);
    throw err;
  }
}

/** The workspace's own path no longer leads to that folder (it, or a folder above it, was replaced by a link or moved). */
export class WorkspaceMovedError extends Error {
  override name = 'WorkspaceMovedError';
  constructor(readonly root: string) {
    super(`${root} is no longer the folder that was checkpointed (it, or a folder above it, was moved or replaced by a link)`);
  }
}

/** True when `root` (a real path) no longer resolves to itself: a link or a moved folder on the way. */
export function rootMoved(root: string): boolean {
  try {
    return realpathSync(root) !== root || !lstatSync(root).isDirectory();
  } catch {
    return true;
  }
}

export interface WorkspaceFsOptions {
  now?: () => number;
  /** A thing moved aside because it stood where a folder or file has to be (workspace-relative: new name, old one). */
  onKeptAside?: (aside: string, from: string) => void;
  /** Test hook: force the portable path (lstat checks) even where /proc works. */
  portable?: boolean;
  /**
   * `root` is a real path and must still be that folder (default true): checked on the opened folder itself, so a
   * link swapped in for the workspace (or a folder above it) cannot send a restore's writes — or a snapshot's reads
   * — to the folder it names (WorkspaceMovedError). Without /proc: by its real path, just before.
   */
  exactRoot?: boolean;
}

export class WorkspaceFs {
  private rootFd: number | undefined;
  /** Open folders by workspace-relative path (insertion order = least recently used first). */
  private readonly dirs = new Map<string, number>();
  readonly viaFd: boolean;

  constructor(
    readonly root: string,
    private readonly opts: WorkspaceFsOptions = {},
  ) {
    this.viaFd = !opts.portable && procFdWorks();
    if (this.viaFd) {
      const fd = openSync(root, O_PATH | O_DIRECTORY);
      let at: string | undefined;
      try {
        at = opts.exactRoot !== false ? readlinkSync(`/proc/self/fd/${fd}`) : root;
      } catch {
        at = undefined;
      }
      if (at !== root) {
        closeSync(fd);
        throw new WorkspaceMovedError(root);
      }
      this.rootFd = fd;
    } else if (opts.exactRoot !== false && rootMoved(root)) {
      throw new WorkspaceMovedError(root);
    }
  }

  close(): void {
    for (const fd of this.dirs.values()) closeSync(fd);
    this.dirs.clear();
    if (this.rootFd !== undefined) closeSync(this.rootFd);
    this.rootFd = undefined;
  }

  /** Drops what is cached for `rel` and below (after it was renamed or removed by us). */
  private forget(rel: string): void {
    for (const [k, fd] of this.dirs) {
      if (k === rel || k.startsWith(`${rel}/`)) {
        closeSync(fd);
        this.dirs.delete(k);
      }
    }
  }

  /** The OS path of folder `relDir` (a real folder, reached without following links), or undefined. */
  private dir(relDir: string, create: boolean): string | undefined {
    if (relDir === '' || relDir === '.') return this.viaFd ? `/proc/self/fd/${this.rootFd}` : this.root;
    if (!this.viaFd) return this.dirPortable(relDir, create);
    const fd = this.dirFd(relDir, create);
    return fd === undefined ? undefined : `/proc/self/fd/${fd}`;
  }

  private dirFd(relDir: string, create: boolean): number | undefined {
    const hit = this.dirs.get(relDir);
    if (hit !== undefined) {
      this.dirs.delete(relDir);
      this.dirs.set(relDir, hit);
      return hit;
    }
    const parentRel = path.posix.dirname(relDir);
    const parent = this.dir(parentRel === '.' ? '' : parentRel, create);
    if (parent === undefined) return undefined;
    const name = path.posix.basename(relDir);
    const open = () => openSync(`${parent}/${name}`, O_PATH | O_DIRECTORY | O_NOFOLLOW);
    let fd: number;
    try {
      fd = open();
    } catch (err) {
      const c = code(err);
      // ENOTDIR / ELOOP: a file or a symlink stands there.
      const notAFolder = c === 'ENOENT' || c === 'ENOTDIR' || c === 'ELOOP';
      if (!create) {
        if (notAFolder || c === 'EACCES') return undefined;
        throw err;
      }
      if (!notAFolder) throw err;
      if (c !== 'ENOENT') this.moveAsideIn(parent, relDir);
      mkdirSync(`${parent}/${name}`, { mode: 0o700 });
      fd = open();
    }
    if (this.dirs.size >= MAX_OPEN_DIRS) {
      const [oldest, oldFd] = this.dirs.entries().next().value!;
      closeSync(oldFd);
      this.dirs.delete(oldest);
    }
    this.dirs.set(relDir, fd);
    return fd;
  }

  private dirPortable(relDir: string, create: boolean): string | undefined {
    let cur = this.root;
    let rel = '';
    for (const seg of relDir.split('/')) {
      const parent = cur;
      cur = path.join(cur, seg);
      rel = rel ? `${rel}/${seg}` : seg;
      let st: Stats | undefined;
      try {
        st = lstatSync(cur);
      } catch (err) {
        if (code(err) !== 'ENOENT' && code(err) !== 'ENOTDIR') throw err;
      }
      if (st?.isDirectory()) continue;
      if (!create) return undefined;
      if (st) this.moveAsideIn(parent, rel);
      mkdirSync(cur, { mode: 0o700 });
    }
    return cur;
  }

  /** Renames `rel` (whose folder is the OS path `parent`) to `<name>.agentdesk-kept-<time>`. */
  private moveAsideIn(parent: string, rel: string): void {
    const name = path.posix.basename(rel);
    const aside = keptAsideName(name, (this.opts.now ?? Date.now)());
    // Never over something of that name (a copy kept by an earlier try of the same restore): it stays, this fails.
    let there = true;
    try {
      lstatSync(`${parent}/${aside}`);
    } catch {
      there = false;
    }
    if (there) throw Object.assign(new Error(`${aside} exists`), { code: 'EEXIST' });
    renameSync(`${parent}/${name}`, `${parent}/${aside}`);
    this.forget(rel);
    const relDir = path.posix.dirname(rel);
    this.opts.onKeptAside?.(relDir === '.' ? aside : `${relDir}/${aside}`, rel);
  }

  /** The OS path of folder `relDir` itself ('' = the root), reached without following links; undefined if it is not one. */
  dirPath(relDir: string): string | undefined {
    return this.dir(relDir, false);
  }

  /** The OS path of `rel` whose folders are real folders (created in "create" mode), or undefined. */
  at(rel: string, create = false): string | undefined {
    const relDir = path.posix.dirname(rel);
    const dir = this.dir(relDir === '.' ? '' : relDir, create);
    return dir === undefined ? undefined : `${dir}/${path.posix.basename(rel)}`;
  }

  private must(rel: string): string {
    const p = this.at(rel, true);
    if (p === undefined) throw new PathChangedError(`The folder of ${rel} could not be made.`);
    return p;
  }

  /** lstat of `rel`, or undefined when it (or a folder on the way) is missing or not a folder. */
  lstat(rel: string): Stats | undefined {
    const p = this.at(rel);
    if (p === undefined) return undefined;
    try {
      return lstatSync(p);
    } catch (err) {
      if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  unlink(rel: string): void {
    const p = this.at(rel);
    if (p !== undefined) unlinkSync(p);
  }

  rmdir(rel: string): void {
    const p = this.at(rel);
    if (p === undefined) return;
    rmdirSync(p);
    this.forget(rel);
  }

  moveAside(rel: string): void {
    const relDir = path.posix.dirname(rel);
    this.moveAsideIn(this.dir(relDir === '.' ? '' : relDir, true)!, rel);
  }

  /** Renames `fromRel` to `toRel`, two names in one folder (reached without following links); false if it is not there. */
  rename(fromRel: string, toRel: string): boolean {
    const relDir = path.posix.dirname(fromRel);
    if (path.posix.dirname(toRel) !== relDir) throw new Error('rename: two folders');
    const dir = this.dir(relDir === '.' ? '' : relDir, false);
    if (dir === undefined) return false;
    renameSync(`${dir}/${path.posix.basename(fromRel)}`, `${dir}/${path.posix.basename(toRel)}`);
    this.forget(fromRel);
    return true;
  }

  mkdir(rel: string, mode: number): void {
    mkdirSync(this.must(rel), { mode });
  }

  /** Writes `data` under a temporary name in the folder, then renames it over `rel`. */
  writeFile(rel: string, data: Uint8Array, mode: number): void {
    const p = this.must(rel);
    const tmp = `${path.posix.dirname(p)}/.agentdesk-restore-${randomBytes(6).toString('hex')}`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
    try {
      let done = 0;
      while (done < data.length) done += writeSync(fd, data, done, data.length - done);
      fchmodSync(fd, mode);
    } catch (err) {
      closeSync(fd);
      unlinkQuietly(tmp);
      throw err;
    }
    closeSync(fd);
    renameOrDrop(tmp, p);
  }

  /** A symlink with the text `target` at `rel` (made under a temporary name, renamed over). */
  symlink(target: string, rel: string): void {
    const p = this.must(rel);
    const tmp = `${path.posix.dirname(p)}/.agentdesk-restore-${randomBytes(6).toString('hex')}`;
    symlinkSync(target, tmp);
    renameOrDrop(tmp, p);
  }

  /**
   * Sets the mode of `rel` if it is (still) a `kind` ('f' file, 'd' folder) — never of what a symlink points to.
   * False when it is not one (the caller decides what to do).
   */
  chmod(rel: string, mode: number, kind: 'f' | 'd'): boolean {
    const p = this.at(rel);
    if (p === undefined) return false;
    const isKind = (st: Stats) => (kind === 'd' ? st.isDirectory() : st.isFile());
    if (this.viaFd) {
      let fd: number;
      try {
        fd = openSync(p, O_PATH | O_NOFOLLOW);
      } catch (err) {
        if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return false;
        throw err;
      }
      try {
        if (!isKind(fstatSync(fd))) return false;
        chmodSync(`/proc/self/fd/${fd}`, mode); // the inode the descriptor names, not a path
        return true;
      } finally {
        closeSync(fd);
      }
    }
    const st = this.lstat(rel);
    if (!st || !isKind(st)) return false;
    if (process.platform === 'darwin') lchmodSync(p, mode);
    else chmodSync(p, mode);
    return true;
  }

  /** Opens `rel` for reading without following a symlink and without blocking on a FIFO; undefined when missing. */
  openRead(rel: string): number | undefined {
    const p = this.at(rel);
    if (p === undefined) return undefined;
    try {
      return openSync(p, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (err) {
      if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  /**
   * Reads `rel` whole: no link followed on the way, a FIFO or device swapped in since it was listed neither blocks
   * (O_NONBLOCK) nor is read, and at most `maxBytes` — a file that keeps growing while it is read (`yes > f` in the
   * background) is 'too-large', not read until memory runs out. With `scratch`, a file smaller than it is read
   * into it and the result is a view of it, good until the next use of `scratch` (a snapshot reads 10 000 files
   * without allocating a buffer for each).
   */
  readFile(rel: string, maxBytes: number, scratch?: Buffer): Buffer | 'gone' | 'not-file' | 'too-large' {
    let fd: number | undefined;
    try {
      fd = this.openRead(rel);
    } catch (err) {
      if (code(err) === 'ELOOP') return 'not-file';
      throw err;
    }
    if (fd === undefined) return 'gone';
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return 'not-file';
      if (st.size > maxBytes) return 'too-large';
      const chunks: Buffer[] = [];
      let size = 0;
      let want = Math.max(st.size, 1);
      if (scratch !== undefined && st.size < scratch.length) {
        for (;;) {
          const n = readSync(fd, scratch, size, scratch.length - size, null);
          if (n === 0) return scratch.subarray(0, size);
          size += n;
          if (size > maxBytes) return 'too-large';
          if (size === scratch.length) break; // it grew past the scratch buffer since fstat: read on as below
        }
        chunks.push(Buffer.from(scratch.subarray(0, size)));
        want = 64 * 1024;
      }
      for (;;) {
        const buf = Buffer.allocUnsafe(want);
        const n = readSync(fd, buf, 0, want, null);
        if (n === 0) break;
        chunks.push(n === want ? buf : buf.subarray(0, n));
        size += n;
        if (size > maxBytes) return 'too-large';
        want = 64 * 1024; // it grew since fstat: keep reading, up to the cap
      }
      return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    } finally {
      closeSync(fd);
    }
  }
}
