/**
 * X2: a turn's capture prepared beside the turn. When a run starts — or, while the worker thread is not started yet
 * (every CLI turn, the app's first), when the run first waits for its model (gate.ts) — the checkpoint worker
 * (checkpoint-worker.ts, a worker thread: the machine's other core) walks the folder and stores what changed in a
 * temporary pack; at the run's first mutating tool call the gate takes the result and the store commits it under its
 * lock in a few file operations (prepare.ts). The main thread no longer pays the walk of a large folder on the turn's
 * path.
 *
 * What the checkpoint then records is the folder as it was when the capture started. Between that moment and the
 * turn's first mutating call the agent itself changes nothing (every tool that changes the folder passes the gate
 * first); only the person (or another program) can, and restoring that turn takes such a change back too. The gate
 * throws the prepared capture away and captures again when another run of this process changed the folder in
 * between, or the folder was checkpointed meanwhile (the store's pointer moved).
 *
 * A run that ends without a mutating call records nothing: its prepared capture is dropped and its temporary pack
 * removed (a pack left by a killed process is removed by the next garbage collection or recovery). When the worker
 * cannot start or fails, every capture happens in this thread, as without it.
 *
 * Only workspaces whose last tree holds at least `minEntries` entries are prepared ahead: below that the walk costs
 * less than starting a worker (and a first snapshot, which reads every file, is not written twice for a turn that
 * may not change anything). Without a prepared capture the gate takes it in this thread: for a `write`/`edit`
 * while the run waits for its model, after the tool ran (copy-on-write, gate.ts), else before the tool runs.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { abortPack, newPackId } from './objects.js';
import type { PreImage } from './patch.js';
import type { Prepared } from './prepare.js';
import type { CheckpointStore } from './store.js';
import { PREFETCH_MIN_ENTRIES, startNicedWorker } from './worker-start.js';

export { PREFETCH_MIN_ENTRIES } from './worker-start.js';

/** What the prefetcher needs of a worker thread (a test may pass its own). */
export type WorkerLike = Pick<Worker, 'postMessage' | 'on' | 'terminate' | 'ref' | 'unref'>;

let workerScript: URL | undefined;

/** Set by each bundle entry (cli, web, the app): the built worker lies beside it. Unset (from source): no worker. */
export function setCheckpointWorkerScript(url: URL): void {
  workerScript = url;
}

/**
 * The built worker, or undefined when there is none (running from source), it cannot start, or
 * AGENTDESK_CHECKPOINT_WORKER=0 turns it off (every capture at the gate, in the main thread).
 */
function spawnCheckpointWorker(): WorkerLike | undefined {
  if (process.env.AGENTDESK_CHECKPOINT_WORKER === '0') return undefined;
  if (!workerScript || !existsSync(fileURLToPath(workerScript))) return undefined;
  try {
    return startNicedWorker(workerScript);
  } catch {
    return undefined;
  }
}

interface Job {
  resolve: (p: Prepared) => void;
  reject: (err: Error) => void;
  packId: string;
}

interface RunPrefetch {
  root: string;
  /** Settles with the prepared capture, or undefined when the worker failed. */
  result: Promise<Prepared | undefined>;
  /** The result has settled. */
  done?: boolean;
  /** The worker's job (copy-on-write pre-images may be sent ahead to it). */
  job?: number;
}

const track = (entry: RunPrefetch): RunPrefetch => {
  void entry.result.then(() => (entry.done = true));
  return entry;
};

export interface PrefetchOptions {
  store: CheckpointStore;
  spawn?: () => WorkerLike | undefined;
  minEntries?: number;
  onError?: (message: string) => void;
}

export class CheckpointPrefetcher {
  private worker: WorkerLike | undefined;
  /** The worker failed or could not start: no more prefetching in this process. */
  private off = false;
  private nextId = 1;
  private readonly jobs = new Map<number, Job>();
  private readonly runs = new Map<string, RunPrefetch>();

  constructor(private readonly o: PrefetchOptions) {}

  private ensureWorker(): WorkerLike | undefined {
    if (this.worker || this.off) return this.worker;
    const w = (this.o.spawn ?? spawnCheckpointWorker)();
    if (!w) {
      this.off = true;
      return undefined;
    }
    this.listen(w);
    return w;
  }

  /** Answers, failures and exit of the worker `w`, which becomes this prefetcher's worker. */
  private listen(w: WorkerLike): void {
    w.on('message', (m: { id: number; ok: boolean; prepared?: Prepared; error?: string }) => {
      const job = this.jobs.get(m.id);
      if (!job) return;
      this.jobs.delete(m.id);
      if (this.jobs.size === 0) w.unref();
      if (m.ok && m.prepared) job.resolve(m.prepared);
      else {
        abortPack(this.o.store.packsDir, job.packId);
        job.reject(new Error(m.error ?? 'the checkpoint worker failed'));
      }
    });
    const fail = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.off = true;
      this.o.onError?.(`the checkpoint worker stopped (${err.message}); checkpoints are taken at the first change of a turn instead`);
      this.failAll(err);
    };
    w.on('error', fail);
    w.on('exit', (code: number) => fail(new Error(`exit code ${code}`)));
    w.unref();
    this.worker = w;
  }

  /** Rejects every job in flight and removes their temporary packs (the worker is gone or going). */
  private failAll(err: Error) {
    for (const job of this.jobs.values()) {
      abortPack(this.o.store.packsDir, job.packId);
      job.reject(err);
    }
    this.jobs.clear();
  }

  /**
   * Whether the worker thread is running (a capture starts on it at once). Until the first capture it is not: starting
   * it costs ≈ 100 ms of CPU (Node's bootstrap of the thread), so the gate starts a run's capture when the run first
   * waits for its model rather than while it is being set up (gate.ts).
   */
  warm(): boolean {
    return this.worker !== undefined;
  }

  /** Starts preparing the capture of `root` for `runId` (false: not worth it here, or no worker). */
  start(runId: string, root: string): boolean {
    if (this.off || this.runs.has(runId)) return false;
    const entries = this.o.store.latestEntries(root);
    if (entries === undefined || entries < (this.o.minEntries ?? PREFETCH_MIN_ENTRIES)) return false;
    const w = this.ensureWorker();
    if (!w) return false;
    const id = this.nextId++;
    const packId = newPackId();
    const result = new Promise<Prepared>((resolve, reject) => this.jobs.set(id, { resolve, reject, packId }));
    if (this.jobs.size === 1) w.ref(); // a run may wait for it: the process stays up until it answers
    try {
      w.postMessage({ id, input: { ...this.o.store.prepareInput(root), packId } });
    } catch (err) {
      this.jobs.delete(id);
      if (this.jobs.size === 0) w.unref();
      return false;
    }
    this.runs.set(runId, track({ root, result: result.catch(() => undefined), job: id }));
    return true;
  }

  /** Whether a capture is being prepared for `runId`. */
  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** Whether `runId`'s capture is still being prepared (a copy-on-write change need not wait for it: gate.ts). */
  pending(runId: string, root: string): boolean {
    const entry = this.runs.get(runId);
    return entry !== undefined && entry.root === root && !entry.done;
  }

  /**
   * Sends a copy-on-write change's pre-images to the worker preparing `runId`'s capture: if they arrive before its
   * walk ends, the capture comes back patched (`patchedWith`), else `patch` is asked for after.
   */
  patchAhead(runId: string, preimages: readonly PreImage[], patchId: string): void {
    const entry = this.runs.get(runId);
    if (!this.worker || entry?.job === undefined || entry.done) return;
    try {
      this.worker.postMessage({ ahead: { job: entry.job, preimages, patchId } });
    } catch {
      /* the worker is going: `patch` finds it gone */
    }
  }

  /**
   * The worker's capture `p` patched with a copy-on-write change's pre-images (patch.ts), re-encoded by the worker
   * that holds its tree; undefined when that cannot be done (the caller throws `p` away and captures again).
   */
  patch(p: Prepared, preimages: readonly PreImage[], patchId: string, dir: string): Promise<Prepared | undefined> {
    const w = this.worker;
    if (!w || this.off) return Promise.resolve(undefined);
    const id = this.nextId++;
    const result = new Promise<Prepared>((resolve, reject) => this.jobs.set(id, { resolve, reject, packId: '' }));
    if (this.jobs.size === 1) w.ref();
    try {
      w.postMessage({ id, patch: { dir, prepared: { ...p, treeGz: undefined }, preimages, patchId } });
    } catch {
      this.jobs.delete(id);
      if (this.jobs.size === 0) w.unref();
      return Promise.resolve(undefined);
    }
    return result.then(
      (patched) => ({ ...patched, pack: p.pack }),
      () => undefined,
    );
  }

  /** The capture prepared for `runId` in `root` (undefined: none, or it failed); the caller commits or discards it. */
  async take(runId: string, root: string): Promise<Prepared | undefined> {
    const entry = this.runs.get(runId);
    if (!entry) return undefined;
    this.runs.delete(runId);
    if (entry.root !== root) {
      this.discard(entry); // the workspace was switched since the run started
      return undefined;
    }
    return entry.result;
  }

  /** The run ended without a change: its capture is thrown away when it arrives. */
  drop(runId: string): void {
    const entry = this.runs.get(runId);
    if (!entry) return;
    this.runs.delete(runId);
    this.discard(entry);
  }

  /** Removes the capture's temporary pack once it is there (or at once if it is). */
  private discard(entry: RunPrefetch): void {
    void entry.result.then((p) => {
      if (p) this.o.store.discardPrepared(p);
    });
  }

  /** Stops the worker; captures in flight are thrown away. */
  async close(): Promise<void> {
    for (const id of [...this.runs.keys()]) this.drop(id);
    const w = this.worker;
    this.worker = undefined;
    this.off = true;
    if (!w) return;
    if (this.jobs.size === 0) {
      // Idle (a turn's capture committed, or none asked): nothing of its work to clean up, so nothing waits for the
      // thread to stop — at the end of a CLI turn the process's exit stops it, 2–4 ms sooner than terminate() here.
      void Promise.resolve(w.terminate()).catch(() => undefined);
      return;
    }
    await w.terminate(); // a capture in flight: stopped before its temporary pack is removed
    this.failAll(new Error('closed'));
  }
}
