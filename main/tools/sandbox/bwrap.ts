/**
 * Linux exec sandbox: bubblewrap argv (T2). Chosen over @anthropic-ai/sandbox-runtime 0.0.78 because what we
 * need maps one-to-one onto bwrap flags, while the runtime adds a proxy-based, deny-by-default network (we want
 * network on unless the person turns it off), needs ripgrep and socat at run time, and is a 0.0.x beta; bwrap is
 * one Debian package and the argv below is the whole policy, unit-tested as text.
 *
 * - the system read-only (`--ro-bind / /`), a fresh /dev and /proc (new PID namespace: /proc shows only the
 *   sandbox, so no parent environ), a private /tmp;
 * - the person's home, the app's data folder and /run/user (keyring, D-Bus sockets) covered by empty tmpfs;
 * - the workspace bound read-write on top (it may live inside home or /tmp), cwd fixed to it;
 * - `--unshare-pid` + `--die-with-parent`: when bwrap ends (or is killed) every process inside dies, even a
 *   setsid double-forked one; `--new-session` so a command cannot push keystrokes into our terminal;
 * - `--unshare-net` when network is off. With network on the host's network namespace is shared, and with it
 *   every ABSTRACT unix socket on the host (they are scoped by network namespace, not by the file system: the X
 *   server's `@/tmp/.X11-unix/X0`, a D-Bus bus on `unix:abstract=…`), plus path sockets the read-only system
 *   bind leaves reachable (/var/run/docker.sock). So with network on, `--seccomp` installs seccomp.ts's filter:
 *   no unix-domain socket can be created inside (EACCES), io_uring is off, other ABIs are killed. Programs that
 *   need a unix socket of their own inside the sandbox get one with network off.
 */
export interface SandboxPlan {
  workspace: string;
  /** Folders that must not be visible (home, app data…). Missing ones are skipped by the caller. */
  hide: readonly string[];
  network: boolean;
}

/**
 * `infoFd`: bwrap writes {"child-pid": N} there once the sandbox's first process exists (see exec.ts).
 * `seccompFd`: bwrap reads the unix-socket filter (seccomp.ts) from it and installs it on the command.
 */
export function bwrapArgs(plan: SandboxPlan, argv: readonly string[], infoFd?: number, seccompFd?: number): string[] {
  const args = [
    ...(infoFd !== undefined ? ['--info-fd', String(infoFd)] : []),
    ...(seccompFd !== undefined ? ['--seccomp', String(seccompFd)] : []),
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(plan.network ? [] : ['--unshare-net']),
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
  ];
  // Shallow ones first so a deeper hidden folder is not re-exposed by a later mount.
  for (const dir of [...new Set(plan.hide)].sort((a, b) => a.length - b.length)) {
    if (dir === '/' || dir === plan.workspace) continue;
    args.push('--tmpfs', dir);
  }
  args.push('--bind', plan.workspace, plan.workspace);
  // A hidden folder inside the workspace (the app's data kept there) stays hidden on top of the bind.
  for (const dir of plan.hide) if (dir.startsWith(`${plan.workspace}/`)) args.push('--tmpfs', dir);
  args.push('--chdir', plan.workspace, '--setenv', 'TMPDIR', '/tmp', '--', ...argv);
  return args;
}
