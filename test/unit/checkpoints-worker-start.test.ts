/**
 * X2: the checkpoint worker is started at background priority from its first instruction (worker-start.ts), with a
 * real worker thread.
 */
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_WORKER_NICE, startNicedWorker } from '../../main/checkpoints/worker-start.js';

describe('startNicedWorker: the checkpoint worker at background priority from its first instruction', () => {
  // The worker's own first statement reads its thread's niceness: Node's bootstrap of the thread ran before it, so
  // this sees what the starting thread set (a plain Worker: the process's niceness until its script lowers it).
  const probe = new URL(`data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; import { getPriority } from 'node:os'; parentPort.postMessage(getPriority());")}`);
  const niceOf = (w: Worker) => new Promise<number>((resolve, reject) => w.once('message', (n: number) => void w.terminate().then(() => resolve(n))).once('error', reject));

  it.skipIf(process.platform !== 'linux')('on Linux the new thread runs below the process from the start; a plain Worker does not', async () => {
    const own = getPriority();
    expect(await niceOf(startNicedWorker(probe))).toBe(Math.max(own, CHECKPOINT_WORKER_NICE));
    expect(await niceOf(new Worker(probe))).toBe(own);
    expect(getPriority()).toBe(own); // this thread is left as it was
  });
});
