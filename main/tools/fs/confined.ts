/**
 * File operations confined to the workspace (T2), all built on the race-free walk (walk.ts): the final
 * component is opened with O_NOFOLLOW through the verified parent folder's descriptor, and on Linux the opened
 * descriptor's real path (/proc/self/fd/N) is checked once more before a byte is read or a temp file renamed
 * into place.
 *
 * X5: devices, FIFOs and sockets are refused BEFORE they are opened — on Linux the entry is first opened with
 * O_PATH (which opens nothing: no device driver runs, no FIFO writer is woken) and only a regular file is then
 * reopened for reading through that very descriptor; elsewhere an lstat comes first and O_NONBLOCK + fstat after.
 * A file with more than one hard link is refused: its other names may lie outside the workspace (a link to
 * ~/.ssh/id_rsa reads like any file), and where they are cannot be told — except in node_modules, where package
 * managers (pnpm) hard-link every file to their store of public packages.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, rename, unlink, type FileHandle } from 'node:fs/promises';
import { ToolError } from '../types.js';
import { tempNameFor } from './temp-name.js';
import { errCode, errText, isInside, locate, type Located } from './walk.js';
import type { WriteGuard } from '../protected/guard.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const checkFdPath = process.platform === 'linux';

export interface OpenedFile {
  handle: FileHandle;
  stat: Stats;
  /** Real path relative to the workspace ('/'-separated). */
  rel: string;
}

/** On Linux: the descriptor's real path must still lie inside the workspace (defence in depth). */
async function assertFdInside(ws: string, fd: number, input: string): Promise<void> {
  if (!checkFdPath) return;
  const real = await readlink(`/proc/self/fd/${fd}`).catch(() => null);
  if (real === null || !isInside(ws, real.replace(/ \(deleted\)$/, ''))) {
    throw new ToolError(`Path "${input}" is outside the workspace: what was opened lies at "${real ?? '?'}"`);
  }
}

const changed = (input: string) =>
  new ToolError(`Path "${input}" changed while it was being opened (a symlink appeared); try again`);

/** Linux's O_PATH (not in Node's constants): a descriptor that names the file without opening it. */
const O_PATH = 0o10000000;
const useOPath = process.platform === 'linux';

/** Why this entry is not opened for reading (devices, FIFOs, sockets, hard-linked files), or undefined. */
export function readRefusal(st: Stats, rel: string): string | undefined {
  const what = st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : undefined;
  if (what) return `"${rel}" is ${what}, not a regular file; it was not opened`;
  if (st.isFile() && st.nlink > 1 && !rel.split('/').includes('node_modules')) {
    return `"${rel}" has ${st.nlink} hard links, and the others may be files outside the workspace, which cannot be told from here; it was not read`;
  }
  return undefined;
}

const openError = (input: string) => (err: unknown): never => {
  const code = errCode(err);
  if (code === 'ELOOP') throw changed(input);
  if (code === 'ENOENT') throw new ToolError(`No such file or directory: ${input}`);
  if (code === 'ENXIO') throw new ToolError(`Path "${input}" is a socket or device, not a regular file`);
  throw new ToolError(`Cannot open "${input}": ${errText(err)}`);
};

/** Opens the final entry for reading once it is known to be a plain file or folder (see above). */
async function openChecked(target: string, input: string, rel: string): Promise<FileHandle> {
  if (!useOPath) {
    const st = await lstat(target).catch(openError(input));
    if (st.isSymbolicLink()) throw changed(input);
    const why = readRefusal(st, rel);
    if (why) throw new ToolError(why);
    return open(target, constants.O_RDONLY | NOFOLLOW | NONBLOCK).catch(openError(input));
  }
  const probe = await open(target, O_PATH | NOFOLLOW).catch(openError(input));
  try {
    const st = await probe.stat();
    if (st.isSymbolicLink()) throw changed(input);
    const why = readRefusal(st, rel);
    if (why) throw new ToolError(why);
    // The same inode, now opened for reading: /proc/self/fd/N of the O_PATH descriptor cannot be swapped.
    const handle = await open(`/proc/self/fd/${probe.fd}`, constants.O_RDONLY | NONBLOCK).catch(openError(input));
    const again = await handle.stat();
    if (again.ino !== st.ino || again.dev !== st.dev) {
      await handle.close();
      throw changed(input);
    }
    return handle;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/** Opens an existing entry for reading. Folders come back with `stat.isDirectory()`; the caller decides. */
export async function openForRead(ws: string, input: string): Promise<OpenedFile> {
  const found = await locate(ws, input);
  try {
    let handle: FileHandle;
    if (found.name === null) {
      // The target is a folder: a second descriptor of the verified one (the walk closes its own).
      handle = await open(found.dirPath(), constants.O_RDONLY | (constants.O_DIRECTORY ?? 0)).catch((err: unknown) => {
        throw new ToolError(`Cannot open "${input}": ${errText(err)}`);
      });
    } else {
      handle = await openChecked(found.childPath(found.name), input, found.rel);
    }
    try {
      await assertFdInside(ws, handle.fd, input);
      const stat = await handle.stat();
      // Checked again on what is open (the lstat path elsewhere can race; on Linux this is the same inode).
      const why = readRefusal(stat, found.rel);
      if (why) throw new ToolError(why);
      return { handle, stat, rel: found.rel };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  } finally {
    await found.close();
  }
}

/** Reads a whole regular text file (for edit / apply_patch), refusing folders, devices, binaries and huge files. */
export async function readWholeText(
  ws: string,
  input: string,
  tool: string,
  maxBytes: number,
): Promise<{ text: string; rel: string; mode: number }> {
  const f = await openForRead(ws, input);
  try {
    if (f.stat.isDirectory()) throw new ToolError(`${tool}: "${f.rel}" is a directory, not a file`);
    if (!f.stat.isFile()) throw new ToolError(`${tool}: "${f.rel}" is not a regular file`);
    if (f.stat.size > maxBytes) {
      throw new ToolError(`${tool}: "${f.rel}" is too large (${f.stat.size} bytes; limit ${maxBytes}); use exec instead`);
    }
    const buf = await f.handle.readFile();
    if (buf.subarray(0, 8192).includes(0)) throw new ToolError(`${tool}: "${f.rel}" looks like a binary file`);
    return { text: buf.toString('utf8'), rel: f.rel, mode: f.stat.mode & 0o7777 };
  } finally {
    await f.handle.close();
  }
}

/** Opens an existing folder for listing: `dirPath()` of the result is what readdir/lstat go through. */
export async function openFolder(ws: string, input: string, tool: string): Promise<Located> {
  const found = await locate(ws, input);
  if (found.name !== null) {
    await found.close();
    throw new ToolError(`${tool}: "${found.rel}" is a file, not a directory`);
  }
  return found;
}

export interface WriteResult {
  rel: string;
  bytes: number;
  created: boolean;
}

/**
 * Creates or replaces a file atomically: parents created step by step inside the workspace, a temp file made
 * with O_CREAT|O_EXCL|O_NOFOLLOW in the verified parent folder, then renamed over the target through the same
 * descriptor. Keeps an existing file's mode.
 */
export interface WriteOptions {
  /** Checks the real path before anything changes (X5 protected paths: protected/guard.ts). */
  guard?: WriteGuard;
}

/** The current text of `target` (a verified parent's child path), for the guard; undefined when unreadable. */
async function currentText(target: string): Promise<string | undefined> {
  const h = await open(target, constants.O_RDONLY | NOFOLLOW | NONBLOCK).catch(() => undefined);
  if (!h) return undefined;
  try {
    const st = await h.stat();
    return st.isFile() && st.size <= 10 * 1024 * 1024 ? (await h.readFile()).toString('utf8') : undefined;
  } finally {
    await h.close();
  }
}

export async function writeAtomic(ws: string, input: string, content: string | Buffer, tool: string, opts: WriteOptions = {}): Promise<WriteResult> {
  const found = await locate(ws, input, { allowMissing: true, createParents: true });
  try {
    if (found.name === null) {
      if (found.rel === '.') throw new ToolError(`${tool}: the workspace folder itself cannot be written as a file`);
      throw new ToolError(`${tool}: "${found.rel}" is a directory`);
    }
    const target = found.childPath(found.name);
    const existing = await lstat(target).catch((err: unknown) => {
      if (errCode(err) === 'ENOENT') return null;
      throw new ToolError(`${tool}: cannot check "${found.rel}": ${errText(err)}`);
    });
    if (existing?.isSymbolicLink()) throw changed(input);
    if (existing?.isDirectory()) throw new ToolError(`${tool}: "${found.rel}" is a directory`);
    if (existing && !existing.isFile()) throw new ToolError(`${tool}: "${found.rel}" is not a regular file`);
    await opts.guard?.(found.rel, content, () => (existing ? currentText(target) : Promise.resolve(undefined)));

    const tmpName = tempNameFor(found.name);
    const tmp = found.childPath(tmpName);
    const bytes = typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.length;
    let handle: FileHandle | undefined;
    try {
      handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
      await assertFdInside(ws, handle.fd, input);
      await handle.writeFile(content);
      if (existing) await handle.chmod(existing.mode & 0o7777);
      await handle.close();
      handle = undefined;
      await rename(tmp, target);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
      if (err instanceof ToolError) throw err;
      throw new ToolError(`${tool}: could not write "${found.rel}": ${errText(err)}`);
    }
    return { rel: found.rel, bytes, created: existing === null };
  } finally {
    await found.close();
  }
}

/** Deletes one regular file (never a folder, never through a symlink). */
export async function removeFile(ws: string, input: string, tool: string, opts: WriteOptions = {}): Promise<void> {
  const found = await locate(ws, input);
  try {
    if (found.name === null) throw new ToolError(`${tool}: "${found.rel}" is a directory; only files can be deleted`);
    const target = found.childPath(found.name);
    const info = await lstat(target).catch(() => null);
    if (!info?.isFile()) throw new ToolError(`${tool}: "${found.rel}" is not a regular file`);
    await opts.guard?.(found.rel, null, () => currentText(target));
    await unlink(target).catch((err: unknown) => {
      throw new ToolError(`${tool}: could not delete "${found.rel}": ${errText(err)}`);
    });
  } finally {
    await found.close();
  }
}
