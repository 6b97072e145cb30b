/**
 * X2: the checkpoint worker — a worker thread (its own bundle entry, out/main/checkpoint-worker.js) that prepares a
 * turn's capture (prepare.ts) while the turn starts on the main thread: the folder walk, the reads of changed files
 * into a temporary pack, the load of the last tree and the tree's encoding. It never takes the store lock and never
 * makes anything visible; the main thread commits or discards what it sends back (prefetch.ts).
 *
 * Messages in: { id, input: PrepareInput }. Out: { id, ok: true, prepared } or { id, ok: false, error }. Jobs run one
 * at a time, in order. A copy-on-write change (gate.ts) sends its pre-images for a capture in flight ({ ahead }, no
 * answer: applied when they arrive before the walk ends) or, when that was too late, asks for the answered capture to
 * be patched ({ id, patch }, answered like a capture). The trees it has read stay cached (content-addressed, so never
 * stale): in the app, the next turn's capture does not read the last tree back.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import path from 'node:path';
import { ObjectIndex } from './objects.js';
import type { PreImage } from './patch.js';
import { patchPrepared, prepareCapture, type Prepared, type PrepareInput } from './prepare.js';
import { TreeFiles } from './tree-files.js';

export interface WorkerJob {
  id: number;
  input: PrepareInput;
}

/** Pre-images for the capture `job` (not answered): taken in if they arrive before its walk ends (prepare.ts). */
export interface PatchAhead {
  ahead: { job: number; preimages: PreImage[]; patchId: string };
}

/** Patches a capture this worker prepared with a copy-on-write change's pre-images (patch.ts): the reply is the new one. */
export interface PatchJob {
  id: number;
  patch: { dir: string; prepared: Prepared; preimages: PreImage[]; patchId: string };
}

const port = parentPort;
if (!port) throw new Error('checkpoint-worker runs as a worker thread');

/**
 * A capture is background work: on Linux this thread runs at nice 10 (or lower still, if the process already
 * does), so on a machine whose cores are busy the turn's own thread, the model's reply being read and the app's
 * window come first, and the capture takes what is left. On free cores it changes nothing. On Linux `setPriority`
 * without a pid sets the calling thread only; elsewhere it would lower the whole process, so it is not called there.
 * Its file work is synchronous: it never starts libuv's thread pool, whose threads would inherit the priority.
 */
const NICE = 10;
if (process.platform === 'linux') {
  try {
    setPriority(Math.max(getPriority(), NICE));
  } catch {
    /* refused (a sandbox's seccomp): the capture runs at the process's priority */
  }
}
const trees = new Map<string, TreeFiles>();
let chain: Promise<void> = Promise.resolve();
/**
 * Test hook (the copy-on-write tests through the built CLI, and a kill between a tool's change and its checkpoint's
 * commit): each capture starts this many ms late. Unset in the product.
 */
const HOLD_MS = Number(process.env.AGENTDESK_CHECKPOINT_WORKER_HOLD_MS ?? 0) || 0;

function treeFilesOf(dir: string): TreeFiles {
  let treeFiles = trees.get(dir);
  if (!treeFiles) trees.set(dir, (treeFiles = new TreeFiles(path.join(dir, 'trees'), 4)));
  return treeFiles;
}

/** Pre-images sent while a capture runs (PatchAhead), by job: applied before that capture is encoded. */
const ahead = new Map<number, { preimages: PreImage[]; patchId: string }>();
/** The last capture answered (jobs run in order: pre-images for it or an earlier one came too late). */
let lastCapture = -1;

function run(job: WorkerJob | PatchJob): void {
  chain = chain.then(async () => {
    try {
      if ('patch' in job) {
        const { dir, prepared, preimages, patchId } = job.patch;
        const treeFiles = treeFilesOf(dir);
        // The capture's tree, kept when it was prepared (never written: its file does not exist, so a miss fails).
        const patched = patchPrepared(prepared, treeFiles.loadForCache(prepared.treeId), preimages, patchId, treeFiles);
        treeFiles.keep(patched.treeId, patched.tree!, patched.treeBase);
        delete patched.tree;
        port!.postMessage({ id: job.id, ok: true, prepared: patched });
        return;
      }
      const dir = job.input.dir;
      const treeFiles = treeFilesOf(dir);
      if (HOLD_MS > 0) await new Promise((r) => setTimeout(r, HOLD_MS));
      // A fresh index (none loaded): contents are deduplicated within this capture only, as in a new CLI process.
      const prepared = await prepareCapture(job.input, { treeFiles, index: new ObjectIndex(path.join(dir, 'packs')), now: Date.now, patch: () => ahead.get(job.id) });
      if (prepared.tree) treeFiles.keep(prepared.treeId, prepared.tree, prepared.treeBase);
      delete prepared.tree; // the main thread never needs the entries: not copied across
      port!.postMessage({ id: job.id, ok: true, prepared });
    } catch (err) {
      port!.postMessage({ id: job.id, ok: false, error: (err as Error)?.message ?? String(err) });
    }
    if ('input' in job) {
      ahead.delete(job.id);
      lastCapture = job.id;
    }
  });
}

port.on('message', (m: WorkerJob | PatchJob | PatchAhead) => {
  if ('ahead' in m) {
    if (m.ahead.job > lastCapture) ahead.set(m.ahead.job, { preimages: m.ahead.preimages, patchId: m.ahead.patchId });
  } else run(m);
});
