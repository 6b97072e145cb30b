/**
 * X2: the engine's checkpoint gate — one snapshot per turn, before its first mutating tool call. A turn is one run
 * (one user message): the run's record says which transcript and which message it belongs to. A subagent's run
 * takes none of its own: the parent's `spawn_subagent` call is mutating, so the parent's turn was recorded before
 * the child started, and restoring that turn also takes back what the child did.
 */
import type { AgentEvent } from '../../preload/contract.js';
import type { CheckpointGate, CheckpointRequestInfo } from '../engine/attempt/checkpoint-step.js';
import { savePending, type PendingRecord } from './pending.js';
import type { CheckpointPrefetcher } from './prefetch.js';
import { takePreImage, targetOf } from './preimage.js';
import { newCheckpointId, type CheckpointStore, type SnapshotInput } from './store.js';

export interface RunInfo {
  sessionId: string;
  message?: string;
  startedAt?: number;
  /** A subagent's run. */
  parent?: unknown;
  endedAt?: number;
}

export interface GateDeps {
  store: CheckpointStore;
  /** The run's record (the runs registry). */
  run: (runId: string) => RunInfo | undefined;
  /** The workspace root (a run's cwd may be a folder inside it). */
  root: () => string;
  /** Settings: checkpoints on (default) or off. */
  enabled: () => boolean;
  /** Prepares each turn's capture from the run's start (none: the folder is captured at the gate). */
  prefetch?: CheckpointPrefetcher;
  /** The runs' events (a run's `lifecycle` start and end drive the prefetch). */
  events?: (listener: (event: AgentEvent) => void) => () => void;
  /** The longest a capture is put off for its run's model call (default DEFER_MAX_MS). */
  deferMaxMs?: number;
}

/**
 * A capture put off for the model's wait runs after this long at the latest: a read-only tool that takes long (a
 * web fetch, an MCP call) does not hold back another session's change, a list or a preview that wait for it.
 */
export const DEFER_MAX_MS = 1000;

/** First line of a message, at most 120 characters (the label a list shows). */
function labelOf(message: string | undefined): string {
  const line = (message ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function createCheckpointGate(deps: GateDeps): CheckpointGate {
  /** Runs whose turn is recorded (or being recorded): the snapshot, shared by concurrent calls of one run. */
  const taken = new Map<string, Promise<void>>();
  /** Gate calls so far (any run, subagents included): each is a tool about to change the folder. */
  let changes = 0;
  /** Runs that have passed the gate (they may be changing the folder until they end). */
  const changing = new Set<string>();
  /** Runs whose capture is being prepared, with `changes` when it started. */
  const prepared = new Map<string, number>();
  const live = (id: string) => {
    const r = deps.run(id);
    return r !== undefined && r.endedAt === undefined;
  };
  /**
   * Copy-on-write commits in flight, by run. A run's end does not wait for its commit (the person's turn is over when
   * the reply is); until the commit is done the run still counts as changing the folder, so another run's change
   * waits for it at the gate and no capture is prepared beside it. Store operations (list, preview, restore, close)
   * wait for it through the store.
   */
  const commits = new Map<string, Promise<void>>();
  const mayChange = (id: string) => live(id) || commits.has(id);
  /** Drops the runs that can no longer change the folder (ended, commit in), but `keep` (the run at the gate). */
  const forgetEnded = (keep?: string) => {
    for (const id of changing) if (id !== keep && !mayChange(id)) changing.delete(id);
  };
  /**
   * Copy-on-write captures put off until their run waits for its model (`waiting`), by run: the release. Also
   * released by the run's next gate call (that tool waits for the commit), by its end, and after DEFER_MAX_MS.
   */
  const deferred = new Map<string, () => void>();
  const release = (runId: string) => {
    const go = deferred.get(runId);
    deferred.delete(runId);
    go?.();
  };
  const { prefetch } = deps;
  /**
   * Captures to start when their run first waits for its model, by run (`waiting`): the worker thread is not
   * started yet. Its start (Node's bootstrap of the thread, ≈ 100 ms of CPU) and the walk would otherwise run
   * beside the run's own set-up — in the CLI the loading of the provider's SDK and the first request, which they
   * slowed by ≈ 40 ms on a 2-core machine — while once the request is out the process has little else to do.
   */
  const coldStarts = new Map<string, () => void>();
  if (deps.events) {
    deps.events((e) => {
      if (e.stream !== 'lifecycle') return;
      const d = e.data as { phase?: string; command?: unknown };
      // The run's end: a capture put off for its model's wait is taken now (its commit goes on after the end).
      if (d.phase === 'end' || d.phase === 'error') release(e.runId);
      if (!prefetch) return;
      if (d.phase === 'start' && d.command === undefined) {
        const run = deps.run(e.runId);
        if (!run || run.parent !== undefined || !deps.enabled()) return;
        forgetEnded();
        const prepare = () => {
          if (prefetch.start(e.runId, deps.root())) prepared.set(e.runId, changes);
        };
        if (changing.size === 0) return prefetch.warm() ? prepare() : void coldStarts.set(e.runId, prepare);
        // Another run may be changing the folder right now: this run's capture is taken at its gate. If those runs
        // have all ended and only their commits are in flight (the same chat's next message, sent at once), it is
        // prepared when they are in — unless the run has reached its gate by then or another run changes the folder.
        if ([...changing].some(live)) return;
        void deps.store.settled().then(() => {
          forgetEnded();
          if (live(e.runId) && changing.size === 0 && !taken.has(e.runId) && !prefetch.has(e.runId)) prepare();
        });
      } else if (d.phase === 'end' || d.phase === 'error') {
        coldStarts.delete(e.runId);
        if (!commits.has(e.runId)) changing.delete(e.runId);
        prepared.delete(e.runId);
        prefetch.drop(e.runId);
      }
    });
  }
  const gate: CheckpointGate = (info) => {
    const changesBefore = changes++;
    changing.add(info.runId);
    // Forget runs that have ended (the maps hold only live runs).
    for (const id of taken.keys()) if (!live(id)) taken.delete(id);
    forgetEnded(info.runId);
    const existing = taken.get(info.runId);
    if (existing) {
      release(info.runId); // a capture put off for the model's wait is taken now: this call waits for it
      return existing;
    }
    const run = deps.run(info.runId);
    if (!deps.enabled() || (run && run.parent !== undefined)) return Promise.resolve();
    const since = prepared.get(info.runId);
    prepared.delete(info.runId);
    const root = deps.root();
    const input: SnapshotInput = {
      sessionKey: info.sessionKey,
      root,
      label: labelOf(run?.message),
      runId: info.runId,
      ...(run ? { sessionId: run.sessionId, runStartedAt: run.startedAt, message: run.message } : {}),
    };
    // Copy-on-write (preimage.ts): this call's one path is saved as it is now, the tool runs at once and the capture
    // is patched with the saved path. Either the capture started with the run is not ready and no other run changed
    // the folder since (`ahead`: the worker's pre-images go to it) — or no capture was started with the run (a
    // small folder, no worker) and no other run is changing the folder (`later`): this thread captures the folder
    // when the run next waits for its model (`waiting`), off the turn's path. Whatever capture is committed in the
    // end is patched: the worker's, or one taken under the store lock when the worker failed or its capture came too
    // late (the folder checkpointed by another process meanwhile).
    const ahead = prefetch !== undefined && since === changesBefore && prefetch.pending(info.runId, root);
    const later = !ahead && !prefetch?.has(info.runId) && changing.size === 1 && !deps.store.busy();
    const cow = ahead || later ? copyOnWrite(deps.store, info, input) : undefined;
    if (cow && ahead) prefetch!.patchAhead(info.runId, cow.preimages, cow.id);
    const go = cow && later ? new Promise<void>((resolve) => deferred.set(info.runId, resolve)) : undefined;
    if (go) setTimeout(() => release(info.runId), deps.deferMaxMs ?? DEFER_MAX_MS).unref();
    const p = (async () => {
      if (go) await go;
      if (!cow) await deps.store.settled(); // another run's change is committed before this capture is taken
      let ready = prefetch ? await prefetch.take(info.runId, root) : undefined;
      if (ready && since !== changesBefore) {
        deps.store.discardPrepared(ready); // another run changed the folder after this one started
        ready = undefined;
      }
      if (ready && cow && ready.patchedWith !== cow.id) {
        const patched = await prefetch!.patch(ready, cow.preimages, cow.id, deps.store.dir);
        if (!patched) deps.store.discardPrepared(ready); // captured again under the lock, and patched there
        ready = patched;
      }
      const record = await deps.store.snapshot(input, ready, cow);
      info.emit({
        phase: 'created',
        id: record.id,
        files: record.files,
        skipped: record.skipped,
        label: record.label,
        toolName: info.toolName,
        ...(record.takenAt !== undefined ? { takenAt: record.takenAt } : {}),
        ...(cow ? { savedFirst: cow.preimages.map((x) => x.p) } : {}),
      });
    })();
    // A failed snapshot is reported once (runCheckpointStep) and not retried for every later call of the turn.
    taken.set(info.runId, p.catch(() => undefined));
    if (!cow) return p;
    // The tool runs now; the commit is reported when it is done (the run's later calls wait for it, its end does not).
    const commit = p.catch((err: unknown) => {
      info.emit({ phase: 'failed', error: (err as Error)?.message ?? String(err), toolName: info.toolName });
    });
    commits.set(info.runId, commit);
    deps.store.track(commit);
    void commit.then(() => {
      if (commits.get(info.runId) === commit) commits.delete(info.runId);
      if (!live(info.runId)) changing.delete(info.runId);
    });
    return Promise.resolve();
  };
  gate.waiting = (runId) => {
    const cold = coldStarts.get(runId);
    if (cold) {
      coldStarts.delete(runId);
      // Still the folder as this run found it: no other run has changed it since, nor has this one reached its gate.
      forgetEnded();
      if (live(runId) && changing.size === 0 && !taken.has(runId) && !prefetch!.has(runId)) cold();
    }
    // After this turn of the event loop: the model call that announced itself has been sent by then.
    if (deferred.has(runId)) setImmediate(() => release(runId));
  };
  return gate;
}

/** A larger file is not copied at the gate (its read, hash and flush could take longer than the capture's wait). */
const COPY_ON_WRITE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * Saves the pre-image of the one path a `write` / `edit` is about to change (preimage.ts) durably in the store
 * (pending.ts), or undefined when this call must wait for the capture: a tool that does not name the one path it
 * changes (`Tool.changesOnly`; exec, apply_patch, MCP, a subagent: what they change is known only after), a path that
 * is not safe or cheap to save (a symlink on the way, a hard link, a file over 2 MB, a .gitignore), a platform
 * whose file names may ignore case (the saved path might not be the tree's: Linux only), or the save failed.
 */
function copyOnWrite(store: CheckpointStore, info: CheckpointRequestInfo, input: SnapshotInput): PendingRecord | undefined {
  if (process.platform !== 'linux' || info.changesOnly === undefined || info.workspace === undefined) return undefined;
  const rel = targetOf(input.root, info.workspace, info.changesOnly);
  if (rel === undefined) return undefined;
  const taken = takePreImage(input.root, rel, Math.min(store.settings.maxFileBytes, COPY_ON_WRITE_MAX_BYTES));
  if (!taken) return undefined;
  try {
    const now = Date.now();
    return savePending(store.dir, { checkpointId: newCheckpointId(now), createdAt: now, input, preimages: [taken.pre] }, taken.data ? new Map([[taken.pre.k === 'f' ? taken.pre.h : '', taken.data]]) : new Map());
  } catch {
    return undefined;
  }
}
