/**
 * X5: exec's watchdog over one bubblewrap sandbox, through the sandbox's own /proc (reached through its first
 * process's root, so the numbers are the PID namespace's). Every 50 ms it counts the processes; every 200 ms it
 * also adds up their private memory (RssAnon). It calls `over` once, when either passes its limit:
 * - processes: the kernel's RLIMIT_NPROC already holds this for everyone but root, whose processes it never
 *   limits — and the sandbox's uid maps back to root there;
 * - memory: the rlimit is per process (limits.ts), so ten processes of 2 GB each would pass it; the sandbox as a
 *   whole may hold at most `totalMemoryKiB` (twice the per-process limit by default, see exec.ts).
 */
import { readdir, readFile } from 'node:fs/promises';

export type WatchdogReason = 'processes' | 'memory';

export interface WatchdogLimits {
  processes: number;
  totalMemoryKiB: number;
}

const TICK_MS = 50;
const MEMORY_EVERY = 4;

/** The RssAnon line of a /proc/PID/status text, KiB (0 when absent: a kernel thread, a zombie). */
export function rssAnonKiB(status: string): number {
  const m = /^RssAnon:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) : 0;
}

export function watchSandbox(sandboxPid: Promise<number | undefined>, limits: WatchdogLimits, over: (why: WatchdogReason) => void): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let busy = false;
  let tick = 0;
  const fire = (why: WatchdogReason): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    over(why);
  };
  void sandboxPid.then((pid) => {
    if (pid === undefined || stopped) return;
    const proc = `/proc/${pid}/root/proc`;
    timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const memory = ++tick % MEMORY_EVERY === 0;
      (async () => {
        const pids = (await readdir(proc)).filter((n) => /^\d+$/.test(n));
        if (pids.length > limits.processes) return fire('processes');
        if (!memory) return;
        let kib = 0;
        for (const p of pids) kib += rssAnonKiB(await readFile(`${proc}/${p}/status`, 'utf8').catch(() => ''));
        if (kib > limits.totalMemoryKiB) fire('memory');
      })().then(
        () => (busy = false),
        () => (busy = false), // gone, or not ours to read: the rlimits still hold where the kernel applies them
      );
    }, TICK_MS);
    timer.unref();
  });
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
