/**
 * X2: how the checkpoint worker (checkpoint-worker.ts) is started — at background priority from its first instruction
 * and with a small young generation — and from what size of folder a turn's capture is worth a thread at all.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Entries below which a folder is walked in the main thread (≈ 25 ms of walk: about what a worker's start costs). */
export const PREFETCH_MIN_ENTRIES = 2000;

/**
 * The checkpoint worker's niceness on Linux (background work: the turn's own thread and the app's window come first).
 * The worker sets it on itself too (checkpoint-worker.ts), but only once its script runs — after Node's bootstrap
 * of the thread, ≈ 50 ms of CPU that would otherwise compete at full priority with the main thread's own work.
 */
export const CHECKPOINT_WORKER_NICE = 10;

/**
 * The checkpoint worker's young generation, MB (V8's default lets it grow to 16 MB a semi-space). A capture's
 * garbage — two strings per name walked — dies young, and what survives (the last tree, the new one) is kept anyway:
 * a small young generation reuses the same few pages, where a growing one touches fresh pages at every scavenge. In a
 * new thread every page is faulted in on its first touch (on a virtual machine: tens of µs each), and a later
 * capture of 10 000 files in a new worker touched ≈ 1 000 pages (4 MB) fewer with 2 MB than with the default.
 */
export const CHECKPOINT_WORKER_YOUNG_MB = 2;

/**
 * Starts the checkpoint worker (`new Worker(script, options)`) and, on Linux, lowers the new thread's priority at once
 * from this thread: the one task that appeared in /proc/self/task during the constructor (it starts the thread before
 * it returns). Anything unexpected (no /proc, not exactly one new task, a refused setpriority) leaves it to the worker.
 */
export function startNicedWorker(script: URL, given?: ConstructorParameters<typeof Worker>[1]): Worker {
  const options = { ...given, resourceLimits: { maxYoungGenerationSizeMb: CHECKPOINT_WORKER_YOUNG_MB, ...given?.resourceLimits } };
  if (process.platform !== 'linux') return new Worker(script, options);
  let before: Set<string> | undefined;
  try {
    before = new Set(readdirSync('/proc/self/task'));
  } catch {
    before = undefined;
  }
  const worker = new Worker(script, options);
  if (before) {
    try {
      const fresh = readdirSync('/proc/self/task').filter((t) => !before.has(t));
      if (fresh.length === 1) {
        const tid = Number(fresh[0]);
        setPriority(tid, Math.max(getPriority(tid), getPriority(), CHECKPOINT_WORKER_NICE));
      }
    } catch {
      /* the worker lowers its own priority when its script starts */
    }
  }
  return worker;
}
