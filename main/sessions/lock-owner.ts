/**
 * Who holds a cross-process lock, and whether that process is still alive (file-lock.ts).
 *
 * A lock file records its holder: the PID, the host, and — on Linux — the process start time (field 22 of
 * `/proc/<pid>/stat`, clock ticks since boot), the boot id and the PID namespace. A waiter on the same host (and
 * PID namespace) can then tell a dead holder at once: no process with that PID, or one that started at another
 * time (the PID was reused), or a holder from before the last reboot. A holder it cannot judge (another host, a
 * container with its own PID namespace, an old lock without a record) is only ever taken over when it stops
 * refreshing its lock (staleness) — never guessed dead.
 *
 * macOS and Windows have no cheap way to read another process's start time: there a PID that no longer exists is
 * dead, and a live PID counts as the holder (a reused PID only costs the wait for staleness, never a double holder).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface LockOwner {
  pid: number;
  host: string;
  /** Linux: start time of the process in clock ticks since boot. */
  start?: string;
  /** Linux: /proc/sys/kernel/random/boot_id of the holder's boot. */
  boot?: string;
  /** Linux: the holder's PID namespace (`pid:[…]`): PIDs of another namespace cannot be checked from here. */
  pidns?: string;
  /** Random per acquisition: a holder recognises its own lock (and only its own) by it. */
  token: string;
  /** When the lock was taken (ms since the epoch). */
  at: number;
}

export type HolderState = 'alive' | 'dead' | 'unknown';

/** What the liveness check reads about processes; a real one on each OS, a fake in table tests. */
export interface ProcessProbe {
  platform: NodeJS.Platform;
  host: string;
  self: { pid: number; start?: string; boot?: string; pidns?: string };
  /** Linux: the start time of `pid`, undefined when there is no such process. */
  startOf(pid: number): string | undefined;
  /** Whether a process with this PID exists (kill(pid, 0): EPERM counts as existing). */
  exists(pid: number): boolean;
}

/** Field 22 (starttime) of a /proc/<pid>/stat line; the command name (field 2) may hold spaces and parentheses. */
export function startTimeOf(statLine: string): string | undefined {
  const close = statLine.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = statLine.slice(close + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19].
  return fields[19] || undefined;
}

const readOr = (read: () => string): string | undefined => {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
};

let probe: ProcessProbe | undefined;

/** The probe of this process (built once; a handful of tiny /proc reads on Linux). */
export function processProbe(): ProcessProbe {
  if (probe) return probe;
  const linux = process.platform === 'linux';
  const startOf = (pid: number) => (linux ? readOr(() => startTimeOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) ?? '') : undefined);
  probe = {
    platform: process.platform,
    host: hostname(),
    self: {
      pid: process.pid,
      ...(linux
        ? {
            start: startOf(process.pid),
            boot: readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
            pidns: readOr(() => readlinkSync('/proc/self/ns/pid')),
          }
        : {}),
    },
    startOf,
    exists(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  };
  return probe;
}

/** The owner record for a lock this process takes now. */
export function ownerRecord(token: string, now: number, p: ProcessProbe = processProbe()): LockOwner {
  return { pid: p.self.pid, host: p.host, ...(p.self.start ? { start: p.self.start } : {}), ...(p.self.boot ? { boot: p.self.boot } : {}), ...(p.self.pidns ? { pidns: p.self.pidns } : {}), token, at: now };
}

/** Parses a lock file's text; undefined for anything that is not a whole owner record (a torn or legacy lock). */
export function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (typeof v !== 'object' || v === null) return undefined;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0 || typeof v.host !== 'string' || typeof v.token !== 'string') return undefined;
    return v as LockOwner;
  } catch {
    return undefined;
  }
}

/** Whether the holder of a lock is alive, dead, or cannot be judged from this process. */
export function holderState(owner: LockOwner | undefined, p: ProcessProbe = processProbe()): HolderState {
  if (!owner || owner.host !== p.host) return 'unknown';
  if (p.platform === 'linux') {
    if (owner.boot && p.self.boot && owner.boot !== p.self.boot) return 'dead'; // taken before the last reboot
    if (owner.pidns !== p.self.pidns) return 'unknown'; // another PID namespace (a container): its PIDs are not ours
    if (owner.pid === p.self.pid) return owner.start === undefined || owner.start === p.self.start ? 'alive' : 'dead';
    const start = p.startOf(owner.pid);
    if (start === undefined) return p.exists(owner.pid) ? 'unknown' : 'dead';
    if (owner.start === undefined) return 'unknown';
    return start === owner.start ? 'alive' : 'dead';
  }
  if (owner.pid === p.self.pid) return 'alive';
  return p.exists(owner.pid) ? 'alive' : 'dead';
}
