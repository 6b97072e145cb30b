/**
 * Linux exec sandbox: bubblewrap argv (T2, X5). Chosen over @anthropic-ai/sandbox-runtime 0.0.78 because what we
 * need maps one-to-one onto bwrap flags, while the runtime adds a proxy-based, deny-by-default network (we want
 * network on unless the person turns it off), needs ripgrep and socat at run time, and is a 0.0.x beta; bwrap is
 * one Debian package and the argv below is the whole policy, unit-tested as text.
 *
 * - `--unshare-user` + `--cap-drop ALL`, always: bwrap started by uid 0 would otherwise hand the command every
 *   capability (CapEff 000001fffeffffff), and `umount -l /proc` (the host's /proc under it, every process's
 *   environ) or `mount -o remount,rw /` would undo the whole policy. Started by root, the command runs as uid/gid
 *   1000 inside (an unprivileged id; files it creates in the workspace still belong to the person outside).
 *   sandbox/index.ts checks at first use that a command inside really holds no capability.
 * - the system read-only (`--ro-bind / /`), a fresh /dev and /proc (new PID namespace: /proc shows only the
 *   sandbox, so no parent environ), a private /tmp;
 * - the person's home, the app's data folder and /run/user (keyring, D-Bus sockets) covered by empty tmpfs;
 * - the workspace bound read-write, cwd fixed to it. Whatever lies inside the workspace is laid over it AFTER the
 *   bind (protected paths, then a data folder kept there), whatever contains it before; /dev and /proc come last. A
 *   workspace that contains the system (`/`, the home's ancestors, system folders) is refused before it gets here
 *   (workspace-check.ts), so the bind can never re-expose the host's /proc or the hidden folders;
 * - protected paths inside the workspace (protected.ts: git hooks and config, shell rc files, editor tasks…):
 *   existing ones bound read-only over themselves, missing ones blocked by an empty read-only folder (bwrap creates
 *   an empty folder as the mount point, which exec removes afterwards; a folder, not /dev/null, because `git add
 *   -A` fails on a device file but ignores an empty folder), folders that hold protected entries (`.git`) bound
 *   over themselves so they cannot be renamed away and replaced;
 * - `--unshare-pid` + `--die-with-parent`: when bwrap ends (or is killed) every process inside dies, even a
 *   setsid double-forked one; `--new-session` so a command cannot push keystrokes into our terminal;
 * - `--unshare-net` when network is off; the unix-socket filter (seccomp.ts, `--seccomp FD`) in both modes:
 *   with network on the host's abstract sockets (X11, D-Bus) share our network namespace, and in both modes path
 *   sockets under /run or /var/run (docker.sock, the system bus) are visible through the read-only system.
 */
export interface SandboxPlan {
  workspace: string;
  /** Folders that must not be visible (home, app data…). Missing ones are skipped by the caller. */
  hide: readonly string[];
  network: boolean;
  /** The command's uid/gid inside (set when bwrap is started by root: an unprivileged id). */
  uid?: number;
  /** Inside the workspace: existing entries bound read-only over themselves (protected paths). */
  readOnly?: readonly string[];
  /** Inside the workspace: missing protected paths, blocked by an empty read-only folder (a tmpfs remounted read-only). */
  blocked?: readonly string[];
  /** Inside the workspace: folders bound over themselves (read-write) so they cannot be renamed or replaced. */
  pinned?: readonly string[];
  /**
   * The size of each writable tmpfs (/tmp, the hidden home…), bytes: they live in RAM, so without one a command
   * writing to /tmp fills half the memory, which no per-process limit sees (bwrap ≥ 0.7's `--size`).
   */
  tmpfsBytes?: number;
  /**
   * Inherited descriptors (O_PATH, opened and checked by the caller: mount-sources.ts) for the pinned and read-only
   * paths, by path: bwrap then binds what was checked (`--bind-fd`), not whatever a concurrent command swapped in
   * since (a symlink to the host's /etc, which a path would follow).
   */
  sourceFds?: ReadonlyMap<string, number>;
}

/** The uid/gid a command runs as inside the sandbox when bwrap is started by root. */
export const SANDBOX_UID_FOR_ROOT = 1000;

/** Namespaces and privileges: the same for every command and for the start-up check (index.ts). */
export function isolationArgs(plan: Pick<SandboxPlan, 'network' | 'uid'>): string[] {
  return [
    '--unshare-user',
    ...(plan.uid !== undefined ? ['--uid', String(plan.uid), '--gid', String(plan.uid)] : []),
    '--cap-drop', 'ALL',
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(plan.network ? [] : ['--unshare-net']),
  ];
}

const inside = (root: string, p: string): boolean => root === '/' ? p !== '/' : p.startsWith(`${root}/`);

/** The folders between `ws` (excluded) and `p` (excluded). */
export function between(ws: string, p: string): string[] {
  const out: string[] = [];
  for (let d = p.slice(0, p.lastIndexOf('/')); inside(ws, d); d = d.slice(0, d.lastIndexOf('/'))) out.push(d);
  return out;
}

/**
 * The binds laid over the workspace, in order: pinned folders — with the parents of hidden folders inside it, so a
 * command cannot rename the data folder's parent away (`mv .config .config_old`) and uncover it for the next
 * command — then the read-only entries. Each needs a source (see sourceFds).
 */
export function workspaceBinds(plan: SandboxPlan): { pinned: string[]; readOnly: string[] } {
  const ws = plan.workspace;
  const hiddenInside = plan.hide.filter((d) => d !== ws && inside(ws, d));
  const pinned = [...new Set([...(plan.pinned ?? []), ...hiddenInside.flatMap((d) => between(ws, d))])].filter((p) => inside(ws, p)).sort(byDepth);
  const readOnly = [...new Set(plan.readOnly ?? [])].filter((p) => inside(ws, p)).sort(byDepth);
  return { pinned, readOnly };
}
const byDepth = (a: string, b: string): number => a.split('/').length - b.split('/').length || a.localeCompare(b);

/**
 * `infoFd`: bwrap writes {"child-pid": N} there once the sandbox's first process exists (see exec.ts).
 * `seccompFd`: bwrap reads the unix-socket filter (seccomp.ts) from it and installs it on the command.
 */
export function bwrapArgs(plan: SandboxPlan, argv: readonly string[], infoFd?: number, seccompFd?: number): string[] {
  const ws = plan.workspace;
  const size = plan.tmpfsBytes !== undefined ? ['--size', String(Math.floor(plan.tmpfsBytes))] : [];
  const tmpfs = (dir: string): string[] => [...size, '--tmpfs', dir];
  const args = [
    ...(infoFd !== undefined ? ['--info-fd', String(infoFd)] : []),
    ...(seccompFd !== undefined ? ['--seccomp', String(seccompFd)] : []),
    ...isolationArgs(plan),
    '--ro-bind', '/', '/',
  ];
  const hidden = [...new Set(plan.hide)].filter((d) => d !== '/' && d !== ws).sort(byDepth);
  // Before the workspace: what contains it (or lies beside it). Shallow ones first, so a deeper hidden folder is
  // not re-exposed by a later mount; /tmp first of all when the workspace lives in it.
  const tmpHoldsWorkspace = inside('/tmp', ws);
  if (tmpHoldsWorkspace) args.push(...tmpfs('/tmp'));
  for (const dir of hidden) if (!inside(ws, dir)) args.push(...tmpfs(dir));
  args.push('--bind', ws, ws);
  // After it: what lies inside it — pinned folders, the protected entries in them, then the hidden folders last of
  // all: a pinned or read-only bind takes its source from the host, so one laid over a hidden folder's parent
  // (`~/.config` pinned for `~/.config/git`) would bring the data folder back.
  const binds = workspaceBinds(plan);
  const bind = (flag: '--bind' | '--ro-bind', p: string): string[] => {
    const fd = plan.sourceFds?.get(p);
    return fd !== undefined ? [`${flag}-fd`, String(fd), p] : [flag, p, p];
  };
  for (const dir of binds.pinned) args.push(...bind('--bind', dir));
  for (const p of binds.readOnly) args.push(...bind('--ro-bind', p));
  for (const p of [...new Set(plan.blocked ?? [])].filter((p) => inside(ws, p)).sort(byDepth)) args.push('--tmpfs', p, '--remount-ro', p);
  for (const dir of hidden) if (inside(ws, dir)) args.push(...tmpfs(dir));
  if (!tmpHoldsWorkspace) args.push(...tmpfs('/tmp'));
  args.push('--dev', '/dev', '--proc', '/proc');
  args.push('--chdir', ws, '--setenv', 'TMPDIR', '/tmp', '--', ...argv);
  return args;
}
