/**
 * macOS exec sandbox: a generated `sandbox-exec` (Seatbelt, SBPL) profile. Later rules win in SBPL, so the
 * profile allows reading the system, then denies the hidden folders (home, app data), then re-allows the
 * workspace read-write. Writes are allowed only to the workspace, temp folders and /dev/null-like devices.
 * Written and unit-tested as text; it cannot run on the Linux machines this project is tested on.
 *
 * Known gap (not fixed blind): with network on, `(allow network*)` also lets a command connect to any unix
 * socket path it can name — e.g. an ssh-agent or XQuartz socket under /private/tmp — and `(allow mach-lookup)`
 * reaches every Mach service. macOS has no abstract sockets, so the Linux hole (seccomp.ts) has no twin here,
 * but a `(deny network-outbound (remote unix-socket))` with an exception for /private/var/run/mDNSResponder (name
 * lookups go through it) and a mach-lookup allow-list need a Mac to verify before they can replace these rules.
 */
import type { SandboxPlan } from './bwrap.js';

/** SBPL string literal. */
export const sbplString = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function seatbeltProfile(plan: SandboxPlan): string {
  const hidden = [...new Set(plan.hide)].filter((d) => d !== '/' && d !== plan.workspace);
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-fork)',
    '(allow process-exec)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow file-read*)',
    ...(hidden.length > 0 ? [`(deny file-read* file-write* ${hidden.map((d) => `(subpath ${sbplString(d)})`).join(' ')})`] : []),
    `(allow file-read* file-write* (subpath ${sbplString(plan.workspace)}))`,
    // X5 protected paths: existing and missing ones alike (SBPL matches paths, so nothing needs creating), and the
    // folders holding them (.git) cannot be renamed or removed themselves.
    ...protectedRules(plan),
    '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders") (literal "/dev/null") (literal "/dev/tty") (literal "/dev/zero"))',
    ...(plan.network ? ['(allow network*)'] : []),
  ];
  return lines.join('\n') + '\n';
}

function protectedRules(plan: SandboxPlan): string[] {
  const paths = [...(plan.readOnly ?? []), ...(plan.blocked ?? [])];
  const rules = [
    ...paths.map((p) => `(subpath ${sbplString(p)})`),
    ...(plan.pinned ?? []).map((p) => `(literal ${sbplString(p)})`),
  ];
  return rules.length > 0 ? [`(deny file-write* ${rules.join(' ')})`] : [];
}

export function seatbeltArgs(plan: SandboxPlan, argv: readonly string[]): string[] {
  return ['-p', seatbeltProfile(plan), ...argv];
}
