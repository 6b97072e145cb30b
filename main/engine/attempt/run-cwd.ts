/**
 * Sandbox and working folder of a run (E9, seed attempt.ts:904): with the sandbox on, tools run in the workspace
 * and nowhere else — a cwd override that is not the workspace itself is a hard error, never silently ignored (the
 * agent would believe it works in one folder while its tools run in another). With the sandbox off, a cwd override
 * must be a folder inside the workspace; the run's tools are then confined to that folder.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../../tools/paths.js';

export class CwdOverrideError extends Error {
  override name = 'CwdOverrideError';
}

/** The folder the run's tools work in (a real path). `workspace` must already be real. */
export async function runWorkspace(opts: { workspace: string; sandbox: boolean; cwd?: string }): Promise<string> {
  if (opts.cwd === undefined || opts.cwd.trim() === '') return opts.workspace;
  const requested = path.resolve(opts.workspace, opts.cwd);
  const real = await realpath(requested).catch(() => undefined);
  if (opts.sandbox && real !== opts.workspace) {
    throw new CwdOverrideError(
      `cwd override "${opts.cwd}" is not supported while the sandbox is on: leave cwd out or use the workspace itself`,
    );
  }
  if (real === undefined) throw new CwdOverrideError(`cwd "${opts.cwd}" does not exist`);
  if (!isInside(opts.workspace, real)) throw new CwdOverrideError(`cwd "${opts.cwd}" is outside the workspace`);
  if (!(await stat(real)).isDirectory()) throw new CwdOverrideError(`cwd "${opts.cwd}" is not a folder`);
  return real;
}
