/**
 * The sources of the binds exec lays over the workspace (X5), opened before bubblewrap starts: a path given to
 * bwrap is resolved by bwrap, later, on the host — so a command running at the same time could swap a checked
 * folder for a symlink to /etc or /root in between, and the next sandbox would get that host folder bound in,
 * read-write for a pinned one. Each source is opened here with O_PATH | O_NOFOLLOW (nothing is opened for
 * reading; a symlink in the last place is refused) and kept only when /proc/self/fd shows exactly the path that was
 * checked (a symlink further up shows another path); bwrap then binds the descriptor (`--bind-fd`).
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';

/** Linux's O_PATH (not in Node's constants). */
const O_PATH = 0o10000000;

export interface MountSources {
  /** Our descriptors, in the order they are handed to the child (stdio 5, 6, …). */
  fds: number[];
  /** Path → the descriptor number the child (bwrap) sees. */
  childFds: Map<string, number>;
  close(): void;
}

/** Opens `paths` (checked real paths); `firstChildFd`: the child's descriptor number of the first one. */
export function openMountSources(paths: readonly string[], firstChildFd: number): MountSources {
  const fds: number[] = [];
  const childFds = new Map<string, number>();
  const close = (): void => {
    for (const fd of fds.splice(0)) closeSync(fd);
  };
  try {
    for (const p of [...new Set(paths)]) {
      const fd = openSync(p, O_PATH | constants.O_NOFOLLOW);
      fds.push(fd);
      // (O_PATH | O_NOFOLLOW opens a symlink itself rather than failing: refused here.)
      if (fstatSync(fd).isSymbolicLink()) throw new Error(`${p} changed while the command was being prepared (it is a symlink now)`);
      const at = readlinkSync(`/proc/self/fd/${fd}`);
      if (at !== p) throw new Error(`${p} changed while the command was being prepared (it now leads to ${at})`);
      childFds.set(p, firstChildFd + fds.length - 1);
    }
  } catch (err) {
    close();
    throw err;
  }
  return { fds, childFds, close };
}
