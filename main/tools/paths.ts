/**
 * Workspace paths (T2): the workspace folder itself, display paths, and `resolveInWorkspace` — a resolver for
 * messages and checks built on the race-free walk in fs/walk.ts. Tools never open what it returns: they open
 * through fs/confined.ts, which verifies what was actually opened.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { errCode, errText, isInside, locate } from './fs/walk.js';
import { ToolError } from './types.js';
import { workspaceRefusal, type WorkspaceCheckOptions } from './workspace-check.js';

export { errCode, isInside };

export interface ResolveOptions {
  /** Accept a target that does not exist yet (for writes); its nearest existing ancestor is checked instead. */
  allowMissing?: boolean;
}

/** Validates the workspace folder (workspace-check.ts: never the system or the data folder) and returns its real path. */
export async function realWorkspace(dir: string, check: WorkspaceCheckOptions = {}): Promise<string> {
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
  const real = await realpath(abs);
  const dataFolders = await Promise.all((check.dataFolders ?? []).map((d) => realpath(d).catch(() => path.resolve(d))));
  const refusal = workspaceRefusal(real, { ...check, dataFolders });
  if (refusal) throw new ToolError(`Workspace folder ${real} cannot be used: ${refusal}. Pick the project's own folder.`);
  return real;
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
  const found = await locate(workspaceReal, input, { allowMissing: opts.allowMissing });
  await found.close();
  return found.abs;
}
