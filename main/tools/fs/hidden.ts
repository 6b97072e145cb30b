/**
 * Folders the file tools treat as outside every workspace (X5): AgentDesk's data folders (--home and the default
 * one: chats, settings.json, config.json with its plugin list, key cooldown state). With the home folder as the
 * workspace the Linux data folder `~/.config/AgentDesk` lies inside it; the exec sandbox already hides it, and the
 * confined walk (walk.ts) refuses any path that is, or lies in, one of these — so the model can neither read a chat
 * nor rewrite config.json to turn the sandbox off. find, grep and list skip them.
 *
 * Registered by each gateway for its lifetime (counted: two gateways may share a data folder).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

const hidden = new Map<string, number>();

const real = (dir: string): string => {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
};

/** Hides `dirs` from the file tools until the returned function is called. */
export function hideFromTools(dirs: readonly string[]): () => void {
  const paths = [...new Set(dirs.filter(Boolean).map(real))];
  for (const p of paths) hidden.set(p, (hidden.get(p) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const p of paths) {
      const n = (hidden.get(p) ?? 1) - 1;
      if (n > 0) hidden.set(p, n);
      else hidden.delete(p);
    }
  };
}

const within = (root: string, p: string): boolean => p === root || p.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);

/** The hidden folder that `abs` (a real absolute path) is or lies in, if any. */
export function hiddenFolderOf(abs: string): string | undefined {
  for (const dir of hidden.keys()) if (within(dir, abs)) return dir;
  return undefined;
}

/** Hidden folders inside `ws`, relative to it ('/'-separated), for tree walks to skip. */
export function hiddenInside(ws: string): string[] {
  return [...hidden.keys()].filter((d) => d !== ws && within(ws, d)).map((d) => path.relative(ws, d).split(path.sep).join('/'));
}
