/**
 * Which folders may be a workspace (X5). The workspace is bound read-write into the exec sandbox and is the root of
 * the file tools, so a folder that CONTAINS the system or other people's data would hand all of it to the agent:
 * `--workspace /` re-exposes the host's /proc under the sandbox's own (every process's environment, keys included)
 * and makes the whole disk writable. Refused: the file-system root, system folders (and everything below /proc,
 * /sys, /dev and /run: kernel interfaces and service sockets), the ancestors of the person's home folder (they
 * hold every user's home and the app's data), and AgentDesk's data folder itself or anything inside it. The home
 * folder itself is allowed: the data folder inside it stays hidden from commands and file tools.
 */
import path from 'node:path';

/** Never a workspace themselves (their subfolders may be: /usr/local/src/project, /opt/app, /srv/site). */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/bin', '/boot', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32', '/media', '/mnt', '/opt', '/sbin', '/srv',
  '/tmp', '/usr', '/usr/bin', '/usr/lib', '/usr/local', '/usr/share', '/var', '/var/lib', '/var/tmp', '/nix', '/snap',
  // macOS
  '/Applications', '/Library', '/System', '/Users', '/Volumes', '/cores', '/private', '/private/etc', '/private/tmp',
  '/private/var',
];
/** Neither a workspace nor anything below them. */
export const SYSTEM_TREES: readonly string[] = ['/proc', '/sys', '/dev', '/run', '/var/run', '/private/var/run'];

const within = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

export interface WorkspaceCheckOptions {
  /** The person's home folder (os.homedir()). */
  home?: string;
  /** AgentDesk's data folders (--home, the default one): never a workspace, nor inside one's reach as a parent. */
  dataFolders?: readonly string[];
}

/** Why `real` (an absolute path with symlinks resolved) cannot be a workspace, or undefined when it can. */
export function workspaceRefusal(real: string, opts: WorkspaceCheckOptions = {}): string | undefined {
  const p = path.resolve(real);
  if (p === path.parse(p).root) return 'it is the root of the file system, which holds the whole system';
  for (const tree of SYSTEM_TREES) if (within(tree, p)) return `it is inside ${tree}, a system folder`;
  if (SYSTEM_FOLDERS.includes(p)) return 'it is a system folder';
  const home = opts.home ? path.resolve(opts.home) : undefined;
  if (home && home !== p && within(p, home)) return `it contains your home folder (${home}) and every other folder in it`;
  for (const data of opts.dataFolders ?? []) {
    if (data && within(path.resolve(data), p)) return `it is inside AgentDesk's data folder (${path.resolve(data)}), where chats and settings are kept`;
  }
  return undefined;
}
