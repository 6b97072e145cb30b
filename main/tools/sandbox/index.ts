/**
 * Which OS sandbox exec uses (T2): bubblewrap on Linux (when the binary exists and a probe run succeeds —
 * user namespaces may be disabled), `sandbox-exec` on macOS, none elsewhere. With none, exec still runs but
 * every command needs the person's approval and the approval card says it is not sandboxed (policy.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { bwrapArgs, type SandboxPlan } from './bwrap.js';
import { seatbeltArgs } from './seatbelt.js';

export type SandboxKind = 'bwrap' | 'seatbelt' | 'none';

export interface SandboxSettings {
  /** config agent.sandbox (default true). */
  enabled: boolean;
  /** config agent.network (default true). */
  network: boolean;
  /** Folders hidden from commands besides the person's home (the app's data folder). */
  hide: readonly string[];
}

export interface SandboxStatus {
  kind: SandboxKind;
  /** Why there is none (for the approval card and logs). */
  reason?: string;
}

const BWRAP = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

let probed: Promise<SandboxStatus> | undefined;

/** Detects (once per process) what this machine offers. */
export function detectSandbox(): Promise<SandboxStatus> {
  probed ??= (async (): Promise<SandboxStatus> => {
    if (process.platform === 'darwin') {
      return existsSync(SANDBOX_EXEC) ? { kind: 'seatbelt' } : { kind: 'none', reason: 'sandbox-exec not found' };
    }
    if (process.platform !== 'linux') return { kind: 'none', reason: `no OS sandbox on ${process.platform}` };
    const bin = BWRAP.find((p) => existsSync(p));
    if (!bin) return { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' };
    const ok = await new Promise<string | null>((resolve) => {
      execFile(bin, ['--die-with-parent', '--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', '/bin/true'],
        { timeout: 5000 }, (err, _o, stderr) => resolve(err ? (stderr.trim() || err.message) : null));
    });
    return ok === null ? { kind: 'bwrap' } : { kind: 'none', reason: `bubblewrap cannot run here: ${ok.split('\n')[0]}` };
  })();
  return probed;
}

export function bwrapPath(): string {
  return BWRAP.find((p) => existsSync(p)) ?? 'bwrap';
}

/** The argv that runs `argv` inside the sandbox (or `argv` itself with 'none'). */
/** File descriptor on which bubblewrap reports the sandbox's first process (the child's stdio[3]). */
export const BWRAP_INFO_FD = 3;

export function sandboxedArgv(kind: SandboxKind, settings: SandboxSettings, workspace: string, argv: readonly string[]): string[] {
  const plan: SandboxPlan = {
    workspace,
    hide: [homedir(), ...settings.hide, ...(existsSync('/run/user') ? ['/run/user'] : [])].filter((d) => d && existsSync(d)),
    network: settings.network,
  };
  if (kind === 'bwrap') return [bwrapPath(), ...bwrapArgs(plan, argv, BWRAP_INFO_FD)];
  if (kind === 'seatbelt') return [SANDBOX_EXEC, ...seatbeltArgs(plan, argv)];
  return [...argv];
}
