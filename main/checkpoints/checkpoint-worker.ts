/**
 * X2: the checkpoint worker — a worker thread (its own bundle entry, out/main/checkpoint-worker.js) that prepares a
 * turn's capture (prepare.ts) while the turn starts on the main thread: the folder walk, the reads of changed files
 * into a temporary pack, the load of the last tree and the tree's encoding. It never takes the store lock and never
 * makes anything visible; the main thread commits or discards what it sends back (prefetch.ts).
 *
 * Messages in: { id, input: PrepareInput }. Out: { id, ok: true, prepared } or { id, ok: false, error }. Jobs run one
 * at a time, in order. Started by the bin with `workerData.early` (early.ts), its first job (id 0) is that capture,
 * begun before the command line's bundle loads. The trees it has read stay cached (content-addressed, so never stale): in the app, the next
 * turn's capture does not read the last tree back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import path from 'node:path';
import { ObjectIndex } from './objects.js';
import { prepareCapture, type PrepareInput } from './prepare.js';
import { TreeFiles } from './tree-files.js';

export interface WorkerJob {
  id: number;
  input: PrepareInput;
}

const port = parentPort;
if (!port) throw new Error('checkpoint-worker runs as a worker thread');
const trees = new Map<string, TreeFiles>();
let chain: Promise<void> = Promise.resolve();

function run(job: WorkerJob): void {
  chain = chain.then(async () => {
    try {
      const dir = job.input.dir;
      let treeFiles = trees.get(dir);
      if (!treeFiles) trees.set(dir, (treeFiles = new TreeFiles(path.join(dir, 'trees'), 4)));
      // A fresh index (none loaded): contents are deduplicated within this capture only, as in a new CLI process.
      const prepared = await prepareCapture(job.input, { treeFiles, index: new ObjectIndex(path.join(dir, 'packs')), now: Date.now });
      if (prepared.tree) treeFiles.keep(prepared.treeId, prepared.tree, prepared.treeBase);
      delete prepared.tree; // the main thread never needs the entries: not copied across
      port!.postMessage({ id: job.id, ok: true, prepared });
    } catch (err) {
      port!.postMessage({ id: job.id, ok: false, error: (err as Error)?.message ?? String(err) });
    }
  });
}

const early = (workerData as { early?: PrepareInput } | null)?.early;
if (early) run({ id: 0, input: early });
port.on('message', run);
