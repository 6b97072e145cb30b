/**
 * Resource limits for sandboxed commands (X5): a fork storm or a memory hog is stopped well before the desktop
 * freezes. Two mechanisms, because one alone does not hold everywhere:
 * - rlimits, set by the shell inside the sandbox before the command runs (`ulimit -u`, `ulimit -d`): a process
 *   limit — counted per user namespace since Linux 5.14, so only the sandbox's own processes count — and a data
 *   limit per process (private writable memory: a 4 GB allocation fails with ENOMEM; address space merely
 *   reserved, as V8 and WebAssembly do, does not count, so runtimes still start);
 * - a watchdog in exec (exec.ts), which counts the sandbox's processes through its own /proc and ends the whole
 *   sandbox when they pass the limit — needed where AgentDesk runs as root: the kernel never applies
 *   RLIMIT_NPROC to root's processes, and the sandbox's uid maps back to root.
 * The memory rlimit is per process (a sandbox-wide total needs a cgroup, which is not available to a desktop app
 * on every system), so the watchdog (watchdog.ts) also ends a sandbox whose processes together hold more than
 * twice that in private memory; the RAM-backed tmpfs mounts (/tmp, the hidden home) are sized to the per-process
 * limit (bwrap.ts).
 */
import os from 'node:os';

export interface SandboxLimits {
  /** Processes (and threads) at once inside one command's sandbox. */
  processes: number;
  /** Private writable memory per process, MiB. */
  memoryMiB: number;
}

export const DEFAULT_PROCESSES = 512;
const MIN_MEMORY_MIB = 1024;
const MAX_DEFAULT_MEMORY_MIB = 3072;

/** A quarter of the RAM, at least 1 GiB and at most 3 GiB (a 4 GiB allocation never fits the default). */
export function defaultLimits(totalBytes = os.totalmem()): SandboxLimits {
  const quarter = Math.floor(totalBytes / 4 / 1024 / 1024);
  return { processes: DEFAULT_PROCESSES, memoryMiB: Math.max(MIN_MEMORY_MIB, Math.min(MAX_DEFAULT_MEMORY_MIB, quarter)) };
}

/**
 * The argv that sets the limits and then runs `command` with `shell` (bash: `-u` and `-d`; another sh: `-d` only,
 * the watchdog keeps the process count). A limit only ever goes down: where the system's own limit is already
 * lower, setting ours fails quietly and the lower one stays. The limits shell replaces itself with the command's
 * shell (`exec`), so no extra process stays around.
 */
export function limitedArgv(shell: string, command: string, limits: SandboxLimits): string[] {
  const kib = Math.max(1, Math.floor(limits.memoryMiB)) * 1024;
  const nproc = Math.max(1, Math.floor(limits.processes));
  const set = shell.endsWith('bash') ? `ulimit -u ${nproc} 2>/dev/null; ulimit -d ${kib} 2>/dev/null` : `ulimit -d ${kib} 2>/dev/null`;
  return [shell, '-c', `${set}; exec "$0" -c "$1"`, shell, command];
}

/** What one sandbox's processes may hold together (the watchdog's memory limit): twice the per-process limit. */
export const totalMemoryMiB = (limits: SandboxLimits): number => 2 * Math.max(1, Math.floor(limits.memoryMiB));
