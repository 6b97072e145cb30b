/**
 * Race-free confinement (T2): a path is walked one component at a time from an open descriptor of the workspace
 * root, each folder opened with O_DIRECTORY | O_NOFOLLOW *relative to the descriptor of its parent* — on Linux
 * through the `/proc/self/fd/N/<name>` magic link, which the kernel resolves from the folder the descriptor
 * refers to (what `openat` does), not from a path someone can swap. A symlink met on the way is read and its
 * target walked again under the same rules, so it is honoured only while it stays inside. The caller gets open
 * descriptors of the verified parent folder and does its own final open with O_NOFOLLOW through it: what is
 * read or written is exactly what was checked, whatever happens to the path in between.
 *
 * Elsewhere (macOS, no /proc) the same walk uses absolute paths with O_NOFOLLOW on every component; a folder
 * swapped between two steps of one walk is not caught there (documented residual risk; exec is sandboxed).
 */
import { constants } from 'node:fs';
import { existsSync } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../types.js';
import { hiddenFolderOf } from './hidden.js';

/** Linux gives up after 40 hops (ELOOP); so do we. */
export const MAX_SYMLINK_HOPS = 40;
/** PATH_MAX and NAME_MAX on Linux and macOS (1024 there for the whole path; the kernel reports it anyway). */
export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

const useProcFd = process.platform === 'linux' && existsSync('/proc/self/fd');
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

export interface WalkOptions {
  /** Accept a final component (and, with createParents, folders) that do not exist yet. */
  allowMissing?: boolean;
  /** Create missing parent folders (for writes). */
  createParents?: boolean;
}

/** An open, verified folder inside the workspace. */
export interface OpenDir {
  handle: FileHandle;
  /** Components from the workspace root (real names, no symlinks). */
  parts: string[];
}

export interface Located {
  /** Verified parent folder of `name` (or the target folder itself when `name` is null). */
  dir: OpenDir;
  /** Final component, not opened yet (null: the target is `dir` itself). */
  name: string | null;
  /** Whether a missing component was met (only with allowMissing): nothing at or below it exists. */
  missing: boolean;
  /** Real path relative to the workspace, '/'-separated ('.' for the root). */
  rel: string;
  /** Absolute real path (for messages and display only; never used to open). */
  abs: string;
  /** The path through which to open a child of `dir` (race-free on Linux). */
  childPath(name: string): string;
  /** Path of `dir` itself for fs calls (readdir, etc.). */
  dirPath(): string;
  close(): Promise<void>;
}

export function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** True when `candidate` is `root` itself or lies below it. Both must be absolute and normalised. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

/** Refuses inputs no tool should ever see: NUL, empty, home-relative, overlong. */
export function checkInput(input: unknown): asserts input is string {
  if (typeof input !== 'string') throw new ToolError('Path must be a string');
  if (input.includes('\0')) throw new ToolError(`Path contains a NUL byte: ${JSON.stringify(input)}`);
  if (input.trim() === '') throw new ToolError('Path is empty');
  if (input === '~' || input.startsWith('~/')) {
    throw new ToolError(
      `Path "${input}" refers to the home folder; paths are relative to the workspace (or absolute inside it)`,
    );
  }
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new ToolError(`Path is too long (${Buffer.byteLength(input)} bytes; the limit is ${MAX_PATH_BYTES})`);
  }
  for (const part of input.split(/[\\/]/)) {
    if (Buffer.byteLength(part) > MAX_NAME_BYTES) {
      throw new ToolError(`Path has a name longer than ${MAX_NAME_BYTES} bytes: "${part.slice(0, 40)}…"`);
    }
  }
}

const splitParts = (p: string): string[] => p.split('/').filter((s) => s !== '' && s !== '.');

/**
 * Turns an absolute path into parts relative to the workspace, or null when it lies outside. A path through an
 * alias of the workspace (a symlink elsewhere pointing at it) is accepted via realpath of its existing prefix;
 * the parts are then walked safely like any other.
 */
async function relativeParts(ws: string, abs: string): Promise<string[] | null> {
  const norm = path.resolve(abs);
  if (isInside(ws, norm)) return splitParts(path.relative(ws, norm).split(path.sep).join('/'));
  let prefix = norm;
  const rest: string[] = [];
  while (true) {
    const real = await realpath(prefix).catch(() => null);
    if (real !== null) {
      if (!isInside(ws, real)) return null;
      return [...splitParts(path.relative(ws, real).split(path.sep).join('/')), ...rest];
    }
    const parent = path.dirname(prefix);
    if (parent === prefix) return null;
    rest.unshift(path.basename(prefix));
    prefix = parent;
  }
}

/**
 * Walks `input` inside the workspace `ws` (its real path). On success the caller owns the returned descriptors
 * and must call `close()`. Errors are ToolErrors with one line naming the path and the reason.
 */
export async function locate(ws: string, input: string, opts: WalkOptions = {}): Promise<Located> {
  checkInput(input);
  const outside = (reason: string) => new ToolError(`Path "${input}" is outside the workspace: ${reason}`);
  let queue: string[];
  if (path.isAbsolute(input)) {
    const parts = await relativeParts(ws, input);
    if (parts === null) throw outside('it is an absolute path outside the workspace');
    queue = parts;
  } else {
    if (!isInside(ws, path.resolve(ws, input))) throw outside("it climbs out of the workspace with '..'");
    queue = splitParts(input.split(path.sep).join('/'));
  }

  const root = await open(ws, DIR_FLAGS).catch((err: unknown) => {
    throw new ToolError(`The workspace folder cannot be opened: ${errText(err)}`);
  });
  const stack: FileHandle[] = [root];
  const names: string[] = [];
  const pathOf = (name: string): string =>
    useProcFd ? `/proc/self/fd/${stack[stack.length - 1]!.fd}/${name}` : path.join(ws, ...names, name);
  const dirPath = (): string => (useProcFd ? `/proc/self/fd/${stack[stack.length - 1]!.fd}` : path.join(ws, ...names));
  const closeAll = async (): Promise<void> => {
    await Promise.all(stack.splice(0).map((h) => h.close().catch(() => undefined)));
  };

  let hops = 0;
  let via: string | undefined; // last symlink target followed, for messages
  let missing = false;
  try {
    while (queue.length > 0) {
      const comp = queue.shift()!;
      if (comp === '..') {
        if (missing) throw new ToolError(`No such file or directory: ${input}`);
        if (names.length === 0) {
          throw via !== undefined
            ? outside(`it resolves through a symlink to "${via}"`)
            : outside("it climbs out of the workspace with '..'");
        }
        await stack.pop()!.close().catch(() => undefined);
        names.pop();
        continue;
      }
      const last = queue.length === 0;
      if (missing) {
        names.push(comp); // below a missing folder: nothing to open
        continue;
      }
      const info = await lstat(pathOf(comp)).catch((err: unknown) => {
        const code = errCode(err);
        if (code === 'ENOENT') return null;
        if (code === 'ENOTDIR') throw notAFolder(input, names);
        throw new ToolError(`Path "${input}" cannot be resolved: ${errText(err)}`);
      });
      if (info?.isSymbolicLink()) {
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) throw new ToolError(`Path "${input}" has too many levels of symbolic links`);
        const target = await readlink(pathOf(comp)).catch((err: unknown) => {
          // Swapped back to a folder or file between lstat and readlink (EINVAL), or removed (ENOENT).
          throw new ToolError(`Path "${input}" changed while it was being opened (${errCode(err) ?? 'error'}); try again`);
        });
        const here = path.join(ws, ...names);
        via = path.resolve(here, target);
        if (path.isAbsolute(target)) {
          const parts = await relativeParts(ws, target);
          if (parts === null) throw outside(`it resolves through a symlink to "${via}"`);
          await Promise.all(stack.splice(1).map((h) => h.close().catch(() => undefined)));
          names.length = 0;
          queue = [...parts, ...queue];
        } else {
          queue = [...splitParts(target), ...queue];
        }
        continue;
      }
      if (last) {
        if (info === null) {
          if (!opts.allowMissing) throw new ToolError(`No such file or directory: ${input}`);
          missing = true;
        }
        if (info?.isDirectory()) {
          // The target is a folder: open it as the current folder.
          stack.push(await openDir(pathOf(comp), input, names));
          names.push(comp);
          break;
        }
        return finish(comp);
      }
      if (info === null) {
        if (!opts.allowMissing) throw new ToolError(`No such file or directory: ${input}`);
        if (!opts.createParents) {
          missing = true;
          names.push(comp);
          continue;
        }
        await mkdir(pathOf(comp)).catch((err: unknown) => {
          if (errCode(err) !== 'EEXIST') throw new ToolError(`Could not create folder for "${input}": ${errText(err)}`);
        });
      } else if (!info.isDirectory()) {
        throw notAFolder(input, [...names, comp]);
      }
      stack.push(await openDir(pathOf(comp), input, [...names, comp]));
      names.push(comp);
    }
    return finish(null);
  } catch (err) {
    await closeAll();
    throw err;
  }

  function finish(name: string | null): Located {
    const relParts = name === null ? [...names] : [...names, name];
    const rel = relParts.length === 0 ? '.' : relParts.join('/');
    // X5: AgentDesk's data folder is outside every workspace, also when it lies inside this one (hidden.ts).
    const hidden = hiddenFolderOf(path.join(ws, ...relParts));
    if (hidden !== undefined) throw outside(`it is in AgentDesk's data folder (${hidden}), where chats and settings are kept`);
    // With `missing`, the walk stopped opening folders: the remaining names are below the deepest open one.
    const openNames = names.slice(0, stack.length - 1);
    const tail = missing ? names.slice(stack.length - 1) : [];
    const finalName = name === null ? null : name;
    return {
      dir: { handle: stack[stack.length - 1]!, parts: openNames },
      name: tail.length > 0 ? null : finalName,
      missing,
      rel,
      abs: path.join(ws, ...relParts),
      childPath: (child: string) => pathOf(child),
      dirPath,
      close: closeAll,
    };
  }
}

async function openDir(p: string, input: string, names: string[]): Promise<FileHandle> {
  try {
    return await open(p, DIR_FLAGS);
  } catch (err) {
    const code = errCode(err);
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') {
      // The entry changed between the check and the open (a swap in progress): refuse rather than guess.
      throw new ToolError(`Path "${input}" changed while it was being opened ("${names.join('/')}"); try again`);
    }
    throw new ToolError(`Path "${input}" cannot be opened: ${errText(err)}`);
  }
}

function notAFolder(input: string, names: string[]): ToolError {
  return new ToolError(`Path "${input}" goes through "${names.join('/')}", which is a file, not a folder`);
}
