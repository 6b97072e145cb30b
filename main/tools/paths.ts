/**
 * Workspace confinement (T2). Every path a tool touches goes through `resolveInWorkspace`, which returns the
 * REAL path (symlinks resolved) so the tool operates on exactly what was checked. Lexical `..` handling alone is
 * not enough: `link/../x` means something else to the kernel than to `path.resolve`, so the answer is always
 * derived from realpath of the target or, for a missing target, of its nearest existing ancestor (following
 * dangling symlinks by hand, so a write through a dangling link cannot create a file outside).
 * Residual risk: a check-then-use race (a symlink swapped in between) is not defended against.
 */
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './types.js';

/** Linux gives up after 40 hops (ELOOP); so do we. */
const MAX_SYMLINK_HOPS = 40;

export interface ResolveOptions {
  /** Accept a target that does not exist yet (for writes); its nearest existing ancestor is checked instead. */
  allowMissing?: boolean;
}

/** Validates the workspace folder and returns its real path. */
export async function realWorkspace(dir: string): Promise<string> {
  if (typeof dir !== 'string' || dir.trim() === '') throw new ToolError('Workspace folder is not set');
  if (dir.includes('\0')) throw new ToolError(`Workspace folder path contains a NUL byte: ${JSON.stringify(dir)}`);
  const abs = path.resolve(dir);
  let info;
  try {
    info = await stat(abs);
  } catch (err) {
    if (errCode(err) === 'ENOENT' || errCode(err) === 'ENOTDIR') {
      throw new ToolError(`Workspace folder does not exist: ${abs}`);
    }
    throw new ToolError(`Workspace folder cannot be opened: ${abs} (${errText(err)})`);
  }
  if (!info.isDirectory()) throw new ToolError(`Workspace path is not a folder: ${abs}`);
  return realpath(abs);
}

/** True when `candidate` is `root` itself or lies below it. Both must be absolute and normalised. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** How a resolved path is shown to the model and the user: relative to the workspace, '.' for the root. */
export function displayPath(workspaceReal: string, real: string): string {
  const rel = path.relative(workspaceReal, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * Resolves `input` (relative to the workspace, or absolute) to a real absolute path inside `workspaceReal`.
 * Throws ToolError naming the path and the reason when it is empty, has a NUL byte, escapes the workspace
 * (by `..`, by being absolute elsewhere, or through a symlink), or does not exist (unless allowMissing).
 */
export async function resolveInWorkspace(
  workspaceReal: string,
  input: string,
  opts: ResolveOptions = {},
): Promise<string> {
  if (typeof input !== 'string') throw new ToolError('Path must be a string');
  if (input.includes('\0')) throw new ToolError(`Path contains a NUL byte: ${JSON.stringify(input)}`);
  if (input.trim() === '') throw new ToolError('Path is empty');
  if (input === '~' || input.startsWith('~/')) {
    throw new ToolError(
      `Path "${input}" refers to the home folder; paths are relative to the workspace (or absolute inside it)`,
    );
  }

  const lexical = path.resolve(workspaceReal, input);
  const { real, exists, notDir } = await resolveReal(lexical, input, 0);

  if (!isInside(workspaceReal, real)) {
    const reason = !isInside(workspaceReal, lexical)
      ? path.isAbsolute(input)
        ? 'it is an absolute path outside the workspace'
        : "it climbs out of the workspace with '..'"
      : `it resolves through a symlink to "${real}"`;
    throw new ToolError(`Path "${input}" is outside the workspace: ${reason}`);
  }
  if (notDir) {
    throw new ToolError(
      `Path "${input}" goes through "${displayPath(workspaceReal, notDir)}", which is a file, not a folder`,
    );
  }
  if (!exists && !opts.allowMissing) throw new ToolError(`No such file or directory: ${input}`);
  return real;
}

interface Resolved {
  real: string;
  exists: boolean;
  /** An existing non-directory that a missing path would have to go through. */
  notDir?: string;
}

async function resolveReal(abs: string, input: string, hops: number): Promise<Resolved> {
  try {
    return { real: await realpath(abs), exists: true };
  } catch (err) {
    const code = errCode(err);
    if (code === 'ELOOP') throw new ToolError(`Path "${input}" has too many levels of symbolic links`);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      throw new ToolError(`Path "${input}" cannot be resolved: ${errText(err)}`);
    }
  }

  // The target itself may be a dangling symlink: follow it by hand so a later write cannot escape through it.
  const own = await lstat(abs).catch(() => null);
  if (own?.isSymbolicLink()) {
    if (hops >= MAX_SYMLINK_HOPS) throw new ToolError(`Path "${input}" has too many levels of symbolic links`);
    const target = path.resolve(path.dirname(abs), await readlink(abs));
    return resolveReal(target, input, hops + 1);
  }

  const parent = path.dirname(abs);
  if (parent === abs) return { real: abs, exists: false }; // filesystem root missing: cannot happen in practice
  const up = await resolveReal(parent, input, hops);
  let notDir = up.notDir;
  if (up.exists && !notDir) {
    const info = await stat(up.real).catch(() => null);
    if (info && !info.isDirectory()) notDir = up.real;
  }
  return { real: path.join(up.real, path.basename(abs)), exists: false, notDir };
}

export function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
