/**
 * Which OS sandbox exec uses (T2, X5): bubblewrap on Linux when the binary exists and a probe run inside it
 * reports no capability at all (verify.ts — user namespaces may be disabled, or a bwrap may not drop them),
 * `sandbox-exec` on macOS, none elsewhere. With none, exec still runs but every command needs the person's
 * approval and the approval card says it is not sandboxed (policy.ts).
 */
import { closeSync, existsSync, openSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { bwrapArgs, isolationArgs, SANDBOX_UID_FOR_ROOT, workspaceBinds, type SandboxPlan } from './bwrap.js';
import { encodeFilter, socketFilter } from './seccomp.js';
import { seatbeltArgs } from './seatbelt.js';
import { parseProcStatus, statusProblem } from './verify.js';
import { defaultLimits, type SandboxLimits } from './limits.js';

export type SandboxKind = 'bwrap' | 'seatbelt' | 'none';

export interface SandboxSettings {
  /** config agent.sandbox (default true). */
  enabled: boolean;
  /** config agent.network (default true). */
  network: boolean;
  /** Folders hidden from commands besides the person's home (the app's data folder). */
  hide: readonly string[];
  /** Process and memory limits per command (limits.ts; default: defaultLimits()). */
  limits?: Partial<SandboxLimits>;
}

export interface SandboxStatus {
  kind: SandboxKind;
  /** Why there is none (for the approval card and logs). */
  reason?: string;
  /** A known weakness of the sandbox that is there (bwrap on a CPU without a socket filter table). */
  gap?: string;
}

const BWRAP = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

let probed: Promise<SandboxStatus> | undefined;
/** This bwrap takes `--size` for a tmpfs (0.7 and later): the writable tmpfs mounts get the memory limit as size. */
let tmpfsSize = false;

/** Detects (once per process) what this machine offers. */
export function detectSandbox(): Promise<SandboxStatus> {
  probed ??= (async (): Promise<SandboxStatus> => {
    if (process.platform === 'darwin') {
      return existsSync(SANDBOX_EXEC) ? { kind: 'seatbelt' } : { kind: 'none', reason: 'sandbox-exec not found' };
    }
    if (process.platform !== 'linux') return { kind: 'none', reason: `no OS sandbox on ${process.platform}` };
    const bin = BWRAP.find((p) => existsSync(p));
    if (!bin) return { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' };
    // The probe runs with the same namespaces and privileges as every command and prints what it holds.
    const probe = [...isolationArgs({ network: true, uid: sandboxUid() }), '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--',
      '/bin/sh', '-c', 'while IFS= read -r l; do echo "$l"; done < /proc/self/status'];
    // Loaded here, not with the module: a CLI turn that runs no command never loads child_process (nor dgram with it).
    const { execFile } = await import('node:child_process');
    const ran = await new Promise<{ error: string } | { status: string }>((resolve) => {
      execFile(bin, probe, { timeout: 5000 }, (err, stdout, stderr) => resolve(err ? { error: stderr.trim() || err.message } : { status: stdout }));
    });
    if ('error' in ran) return { kind: 'none', reason: `bubblewrap cannot run here: ${ran.error.split('\n')[0]}` };
    tmpfsSize = await new Promise<boolean>((resolve) => {
      execFile(bin, ['--help'], { timeout: 5000 }, (_err, stdout) => resolve(/^\s*--size\b/m.test(String(stdout))));
    });
    const problem = statusProblem(parseProcStatus(ran.status));
    if (problem) return { kind: 'none', reason: `bubblewrap does not isolate commands here: ${problem}` };
    return socketFilter(process.arch)
      ? { kind: 'bwrap' }
      : { kind: 'bwrap', gap: `no unix-socket filter for ${process.arch}: commands can reach the host's unix sockets (abstract ones with network on, path sockets under /run in both modes)` };
  })();
  return probed;
}

/** Started by root, commands run as an unprivileged uid inside (bwrap.ts); otherwise as the person. */
export function sandboxUid(): number | undefined {
  return process.getuid?.() === 0 ? SANDBOX_UID_FOR_ROOT : undefined;
}

export function bwrapPath(): string {
  return BWRAP.find((p) => existsSync(p)) ?? 'bwrap';
}

/** File descriptor on which bubblewrap reports the sandbox's first process (the child's stdio[3]). */
export const BWRAP_INFO_FD = 3;
/** File descriptor from which bubblewrap reads the seccomp filter (the child's stdio[4]). */
export const BWRAP_SECCOMP_FD = 4;

/**
 * The unix-socket filter (seccomp.ts) as a read-only descriptor for bwrap's `--seccomp`, in both network modes,
 * or undefined when this CPU has no table (the status's `gap`). Written to a 0600 file in a private temp folder
 * that is removed at once; the caller passes `fd` to the child and then calls `close()`. A fresh descriptor per
 * command: bwrap reads it to its end, so a shared offset would hand the next command an empty filter.
 */
export async function openSocketFilter(kind: SandboxKind): Promise<{ fd: number; close(): void } | undefined> {
  const program = kind === 'bwrap' ? socketFilter(process.arch) : undefined;
  if (!program) return undefined;
  const dir = await mkdtemp(path.join(tmpdir(), 'agentdesk-seccomp-'));
  try {
    const file = path.join(dir, 'filter.bpf');
    await writeFile(file, encodeFilter(program), { mode: 0o600 });
    const fd = openSync(file, 'r');
    let open = true;
    return {
      fd,
      close: () => {
        if (open) closeSync(fd);
        open = false;
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Protected paths inside the workspace (protected/exec-guard.ts). */
export type ProtectedMounts = Pick<SandboxPlan, 'readOnly' | 'blocked' | 'pinned'>;

const realOrSame = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** File descriptor of the first bind source (mount-sources.ts) in the child: after the info and seccomp ones. */
export const BWRAP_FIRST_SOURCE_FD = 5;

/** What one command's sandbox looks like (bwrap.ts, seatbelt.ts). */
export function sandboxPlan(settings: SandboxSettings, workspace: string, protect: ProtectedMounts = {}): SandboxPlan {
  return {
    ...protect,
    workspace,
    // Real paths: the workspace is one, and the parents of a hidden folder inside it are bound from checked sources.
    hide: [homedir(), ...settings.hide, ...(existsSync('/run/user') ? ['/run/user'] : [])].filter((d) => d && existsSync(d)).map(realOrSame),
    network: settings.network,
    uid: sandboxUid(),
    ...(tmpfsSize ? { tmpfsBytes: { ...defaultLimits(), ...settings.limits }.memoryMiB * 1024 * 1024 } : {}),
  };
}

/** The paths bwrap binds over the workspace for `plan`: their sources are opened first (mount-sources.ts). */
export function bindSources(plan: SandboxPlan): string[] {
  const { pinned, readOnly } = workspaceBinds(plan);
  return [...pinned, ...readOnly];
}

/** The argv that runs `argv` inside the sandbox (or `argv` itself with 'none'); `seccompFd` from openSocketFilter. */
export function sandboxedArgv(kind: SandboxKind, plan: SandboxPlan, argv: readonly string[], seccompFd?: number): string[] {
  if (kind === 'bwrap') return [bwrapPath(), ...bwrapArgs(plan, argv, BWRAP_INFO_FD, seccompFd)];
  if (kind === 'seatbelt') return [SANDBOX_EXEC, ...seatbeltArgs(plan, argv)];
  return [...argv];
}
