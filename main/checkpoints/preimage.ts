/**
 * X2 copy-on-write: the pre-image of the one path a `write` or `edit` is about to change, taken at the gate when the
 * turn's capture is still being prepared (gate.ts). Only where it can be taken safely and cheaply — else undefined,
 * and the gate waits for the capture as before:
 *
 * - the path, as the tool will resolve it, lies inside the checkpointed folder, with no "." / ".." part, no `.git`
 *   in any spelling, and is not a `.gitignore` (that would change what the capture ignores);
 * - every part of the way is a real folder (no symlink: the tool would follow it to another path), walked without
 *   following links (workspace-fs.ts);
 * - the path is an existing regular file with one link (a hard link's other names may change with it) and no
 *   larger than `maxFileBytes` (the gate's cap) — or it does not exist (the first missing part of its way is recorded: the tool
 *   creates that folder and what is under it).
 */
import path from 'node:path';
import { sha256 } from './objects.js';
import type { PreImage } from './patch.js';
import { badEntryPath } from './tree.js';
import { WorkspaceFs } from './workspace-fs.js';

export interface TakenPreImage {
  pre: PreImage;
  /** The file's content (a file that existed). */
  data?: Buffer;
}

/** The path `input` names, relative to `root` ('/'-separated), when the tool run in `workspace` would write exactly it. */
export function targetOf(root: string, workspace: string, input: unknown): string | undefined {
  if (typeof input !== 'string' || input === '' || input.includes('\0')) return undefined;
  if (input.split(/[\\/]/).some((part) => part === '..' || part === '.')) return undefined;
  const abs = path.isAbsolute(input) ? path.normalize(input) : path.join(workspace, input);
  if (!isWithin(root, workspace) || !isWithin(workspace, abs) || abs === workspace) return undefined;
  const rel = path.relative(root, abs).split(path.sep).join('/');
  if (rel === '' || badEntryPath(rel) || path.posix.basename(rel) === '.gitignore') return undefined;
  return rel;
}

const isWithin = (dir: string, p: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/** The pre-image of `rel` (see above), or undefined when it cannot be taken safely and cheaply. */
export function takePreImage(root: string, rel: string, maxFileBytes: number): TakenPreImage | undefined {
  const fs = new WorkspaceFs(root);
  try {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const at = parts.slice(0, i).join('/');
      const st = fs.lstat(at); // its folder is a real one (checked at the step before): undefined = missing
      if (st === undefined) return { pre: { p: rel, k: 'absent', from: at } };
      if (i < parts.length) {
        if (!st.isDirectory()) return undefined; // a symlink (or a file) on the way
        continue;
      }
      if (!st.isFile() || st.nlink !== 1 || st.size > maxFileBytes) return undefined;
      const data = fs.readFile(rel, maxFileBytes);
      if (!Buffer.isBuffer(data)) return undefined; // changed since the lstat: not taken
      return { pre: { p: rel, k: 'f', m: st.mode & 0o7777, h: sha256(data), s: data.length }, data };
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    fs.close();
  }
}
