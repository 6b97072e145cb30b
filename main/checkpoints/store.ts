/**
 * X2 checkpoint store, in the app's data folder (`<home>/checkpoints/`), never in the workspace:
 *
 *   packs/<id>.pack|.idx        file contents by sha256 (objects.ts)
 *   trees/<id>.json.gz          one tree per distinct workspace state, whole or as a delta (tree.ts, tree-files.ts)
 *   sessions/<hash>.jsonl       each session's checkpoints and restores (log.ts)
 *   workspaces/<hash>.json      the latest tree of each workspace: the stat cache of the next snapshot
 *   journal.json                the operation in progress (crash recovery)
 *   gc.json                     checkpoints dropped since the last garbage collection (when the next is due, retention.ts)
 *
 * Why a content-addressed store of our own and not a shadow git (a second GIT_DIR with core.worktree, as Cline
 * does): no git is needed on the person's machine; the person's `.git` is never opened at all (a shadow git still
 * reads the work tree's `.gitignore`/attributes through git's own rules and has to be kept away from nested repos);
 * one snapshot is one pack write, where `git add -A` writes one zlib object per new file (10 000 creations on a
 * first snapshot); and a restore can check every object's hash before it changes a file, so a damaged store never
 * half-restores a folder. The stat cache (size, mtime, ctime, inode) plays git's index role.
 *
 * Every operation holds one lock — in-process (a mutex) and across processes (`store.lock`, file-lock.ts) — and
 * writes a journal first. A process killed mid-snapshot leaves only unreferenced temporary files (the folder was
 * never touched: "before"); one killed mid-restore is rolled forward by whoever takes the lock next ("after"), and
 * that process says which (`notices`).
 *
 * This class holds the lock, the journal and the snapshot; what a restore would change and the restore itself are in
 * restore.ts, what is kept and the garbage collection of what nothing references in retention.ts (both run under it).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { acquireFileLock } from '../sessions/file-lock.js';
import { KeyedMutex } from '../sessions/write-lock.js';
import type { ApplyReport } from './apply.js';
import type { CaptureStats } from './capture.js';
import { appendLog, readLog, type CheckpointRecord, type LogRecord, type RestoreRecord } from './log.js';
import { abortPack, ObjectIndex, ObjectReader } from './objects.js';
import { commitPrepared, patchPrepared, prepareCapture, readPointer, type PrepareInput, type Prepared } from './prepare.js';
import { commitPendingPack, hasPending, orphanedPending, removePending, type PendingRecord } from './pending.js';
import { recoverInterrupted, recoverPending } from './recovery.js';
import { CheckpointNotFoundError, DEFAULT_CHECKPOINT_SETTINGS, type CheckpointSettings, type RestorePlan, type SnapshotInput, type StoreOptions } from './store-types.js';
import { clearJournal, diskUsage, keyHash, newCheckpointId, writeJournal } from './layout.js';
import { applyStored, previewRestore, restoreLocked, type RestorePreview } from './restore.js';
import type { Tree } from './tree.js';
import { TreeFiles } from './tree-files.js';
import { collectionDue, collectStore, countDropped, pruneLog, readDropped, staleSessionLogs, type StoreFiles } from './retention.js';

export { CheckpointNotFoundError, DEFAULT_CHECKPOINT_SETTINGS, type CheckpointSettings, type RestorePlan, type SnapshotInput, type StoreOptions, type SwitchConversation } from './store-types.js';
export { StalePreparedError } from './prepare.js';
export { newCheckpointId } from './layout.js';

export class CheckpointStore {
  readonly packsDir: string;
  readonly treesDir: string;
  readonly sessionsDir: string;
  readonly workspacesDir: string;
  private readonly index: ObjectIndex;
  private readonly mutex = new KeyedMutex();
  private readonly treeFiles: TreeFiles;
  private readonly now: () => number;
  /** Capture figures of the last snapshot (bench, tests). */
  lastCapture: CaptureStats | undefined;
  /** Commits of copy-on-write checkpoints in flight (gate.ts): restores, previews and lists wait for them. */
  private readonly commits = new Set<Promise<unknown>>();

  constructor(
    readonly dir: string,
    private readonly opts: StoreOptions = {},
  ) {
    this.packsDir = path.join(dir, 'packs');
    this.treesDir = path.join(dir, 'trees');
    this.sessionsDir = path.join(dir, 'sessions');
    this.workspacesDir = path.join(dir, 'workspaces');
    this.index = new ObjectIndex(this.packsDir);
    this.treeFiles = new TreeFiles(this.treesDir);
    this.now = opts.now ?? Date.now;
  }

  static dirIn(home: string): string {
    return path.join(home, 'checkpoints');
  }

  get settings(): CheckpointSettings {
    return this.opts.settings?.() ?? DEFAULT_CHECKPOINT_SETTINGS;
  }

  private logFile(sessionKey: string) {
    return path.join(this.sessionsDir, `${keyHash(sessionKey)}.jsonl`);
  }

  private get journalFile() {
    return path.join(this.dir, 'journal.json');
  }

  /** Runs `fn` holding the store lock, after finishing whatever a killed process left in the journal. */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run('store', async () => {
      for (const d of [this.packsDir, this.treesDir, this.sessionsDir, this.workspacesDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
      const release = await acquireFileLock(path.join(this.dir, 'store.lock'), { pollMs: 20, ...(this.opts.lockStaleMs ? { stale: this.opts.lockStaleMs } : {}) });
      try {
        await this.recover();
        return await fn();
      } finally {
        await release();
      }
    });
  }

  private notice(line: string) {
    (this.opts.onNotice ?? ((l: string) => process.stderr.write(`agentdesk: ${l}\n`)))(line);
  }

  /** Finishes an operation a killed process left behind (called under the lock; recovery.ts). */
  private async recover(): Promise<void> {
    await this.recoverJournal();
    await recoverPending(orphanedPending(this.dir), {
      finish: (r) =>
        this.snapshotLocked(r.input, undefined, r).catch((err: unknown) => {
          clearJournal(this.journalFile); // nothing was changed; the record stays for the next try
          throw err;
        }),
      notice: (line) => this.notice(line),
      logHas: (r) => readLog(this.logFile(r.input.sessionKey)).some((x) => x.id === r.checkpointId),
      remove: (r) => removePending(this.dir, r),
    });
  }

  private recoverJournal(): Promise<void> {
    return recoverInterrupted({
      journalFile: this.journalFile,
      packsDir: this.packsDir,
      dirs: [this.packsDir, this.treesDir, this.sessionsDir, this.workspacesDir],
      loadTree: (id) => this.loadTree(id),
      apply: (root, tree, keep, stamp) => this.applyLocked(root, tree, undefined, keep, stamp),
      ...(this.opts.switchConversation ? { switchConversation: this.opts.switchConversation } : {}),
      logFile: (key) => this.logFile(key),
      notice: (line) => this.notice(line),
    });
  }

  loadTree(id: string): Tree {
    return this.treeFiles.load(id);
  }

  /** The tree a stored delta builds on (garbage collection keeps it alive with it). */
  baseOf(id: string): string | undefined {
    return this.treeFiles.baseOf(id);
  }

  /** The latest tree taken of `root` (any session): the stat cache of the next snapshot, and its delta base. */
  private previousTree(root: string): { id: string; tree: Tree } | undefined {
    const pointer = readPointer(this.dir, root);
    if (!pointer) return undefined;
    try {
      return { id: pointer.tree, tree: this.treeFiles.loadForCache(pointer.tree) };
    } catch {
      return undefined;
    }
  }

  /** Entries of the latest tree of `root` as its pointer says (undefined: no tree yet, or an older pointer). */
  latestEntries(root: string): number | undefined {
    return readPointer(this.dir, root)?.entries;
  }

  /** The work of a capture of `root`, in this thread (prepare.ts). */
  private prepareHere(root: string): Promise<Prepared> {
    return prepareCapture(this.prepareInput(root), { treeFiles: this.treeFiles, index: this.index, now: this.now });
  }

  /** What a capture of `root` needs (also sent to the checkpoint worker). */
  prepareInput(root: string): PrepareInput {
    return { dir: this.dir, root, limits: this.settings, exclude: [this.dir, ...(this.opts.exclude ?? [])], ...(this.opts.racyMs !== undefined ? { racyMs: this.opts.racyMs } : {}) };
  }

  /** Makes a prepared capture visible (under the lock; prepare.ts): a StalePreparedError when it came too late. */
  private commitLocked(p: Prepared, cow?: PendingRecord): { id: string; tree?: Tree } {
    if (cow) {
      // The pre-images' contents go in first (the tree names them), and only with a tree to commit: a capture that
      // failed leaves them pending for the next try.
      const rows = commitPendingPack(this.dir, this.packsDir, cow);
      if (rows.length) this.index.addPack(cow.id, rows);
    }
    const committed = commitPrepared(p, { dir: this.dir, index: this.index, treeFiles: this.treeFiles });
    this.lastCapture = p.stats;
    return committed;
  }

  /** Throws away a prepared capture that will not be committed (its temporary pack). */
  discardPrepared(p: Prepared): void {
    if (p.pack) abortPack(this.packsDir, p.pack.id);
  }

  /** Scans, stores new contents, records the tree (under the lock). */
  private async captureLocked(root: string, cow?: PendingRecord): Promise<{ tree: Tree; id: string; files: number; skipped: number; skippedSample: string[] }> {
    let p = await this.prepareHere(root);
    if (cow) p = patchPrepared(p, p.tree!, cow.preimages, cow.id, this.treeFiles);
    try {
      const { id } = this.commitLocked(p, cow);
      return { tree: p.tree!, id, files: p.files, skipped: p.skipped, skippedSample: p.skippedSample };
    } catch (err) {
      this.discardPrepared(p);
      throw err;
    }
  }

  /** `cow`: the pre-images of a change made before this commit (pending.ts): the capture is patched with them. */
  private async snapshotLocked(input: SnapshotInput, prepared?: Prepared, cow?: PendingRecord): Promise<CheckpointRecord> {
    writeJournal(this.journalFile, { op: 'snapshot', sessionKey: input.sessionKey, root: input.root, startedAt: this.now() });
    let captured: { id: string; files: number; skipped: number; skippedSample: string[]; takenAt?: number } | undefined;
    if (prepared && prepared.root === input.root && prepared.patchedWith === cow?.id) {
      try {
        captured = { ...this.commitLocked(prepared, cow), files: prepared.files, skipped: prepared.skipped, skippedSample: prepared.skippedSample, takenAt: prepared.takenAt };
      } catch {
        captured = undefined; // stale, or its temporary pack was swept: captured again below
      }
    }
    if (!captured) {
      if (prepared) this.discardPrepared(prepared);
      captured = await this.captureLocked(input.root, cow);
    }
    const record: CheckpointRecord = {
      type: 'checkpoint',
      id: cow?.checkpointId ?? newCheckpointId(this.now()),
      createdAt: this.now(),
      kind: input.kind ?? 'turn',
      label: input.label,
      files: captured.files,
      tree: captured.id,
      root: input.root,
      sessionKey: input.sessionKey,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      ...(input.runId ? { runId: input.runId, runStartedAt: input.runStartedAt } : {}),
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(captured.takenAt !== undefined ? { takenAt: captured.takenAt } : {}),
      skipped: captured.skipped,
      ...(captured.skipped ? { skippedSample: captured.skippedSample } : {}),
    };
    appendLog(this.logFile(input.sessionKey), [record], cow !== undefined); // flushed before the pending record goes
    if (cow) removePending(this.dir, cow);
    clearJournal(this.journalFile);
    return record;
  }

  /**
   * Records the workspace of `input.root` (X2: before the first change of a turn). With `prepared` (a capture
   * prepared earlier, by the checkpoint worker while the turn started), the record is of the folder as it was then,
   * if nothing was checkpointed in between; else it is taken now.
   */
  snapshot(input: SnapshotInput, prepared?: Prepared, cow?: PendingRecord): Promise<CheckpointRecord> {
    return this.locked(async () => {
      const record = await this.snapshotLocked(input, prepared, cow);
      await this.retainLocked(input.sessionKey);
      return record;
    });
  }

  /** Registers a commit in flight (a copy-on-write checkpoint): `settled` waits for it. */
  track(commit: Promise<unknown>): void {
    const p = commit.catch(() => undefined).finally(() => this.commits.delete(p));
    this.commits.add(p);
  }

  /** A commit of this process is in flight. */
  busy(): boolean {
    return this.commits.size > 0;
  }

  /** Resolves when no commit of this process is in flight. */
  async settled(): Promise<void> {
    while (this.commits.size) await Promise.all([...this.commits]);
  }

  records(sessionKey: string): LogRecord[] {
    return readLog(this.logFile(sessionKey));
  }

  /** The session's turn checkpoints, oldest first (what `checkpoints list` shows). */
  list(sessionKey: string): CheckpointRecord[] {
    return this.records(sessionKey).filter((r): r is CheckpointRecord => r.type === 'checkpoint' && r.kind === 'turn');
  }

  checkpoint(sessionKey: string, id: string): CheckpointRecord {
    const found = this.records(sessionKey).find((r): r is CheckpointRecord => r.type === 'checkpoint' && r.id === id);
    if (!found) throw new CheckpointNotFoundError(`No checkpoint "${id}" in session "${sessionKey}".`);
    return found;
  }

  lastRestore(sessionKey: string): RestoreRecord | undefined {
    return this.records(sessionKey).findLast((r): r is RestoreRecord => r.type === 'restore');
  }

  /** What restoring checkpoint `id` would change in the workspace now (nothing is written; restore.ts). */
  async preview(sessionKey: string, id: string): Promise<RestorePreview> {
    await this.settled();
    return this.locked(async () => {
      const cp = this.checkpoint(sessionKey, id);
      const target = this.loadTree(cp.tree);
      return previewRestore(cp.root, target, {
        limits: this.settings,
        exclude: [this.dir, ...(this.opts.exclude ?? [])],
        previous: this.previousTree(cp.root)?.tree,
        racyMs: this.opts.racyMs,
        index: this.index,
        now: this.now,
      });
    });
  }

  /** Reads one stored content (diffs in the UI). */
  readObject(hash: string): Promise<Buffer> {
    return this.locked(async () => {
      this.index.refresh();
      const reader = new ObjectReader(this.index);
      try {
        return reader.read(hash);
      } finally {
        reader.close();
      }
    });
  }

  /** Makes `root` match `target`; `current` is a capture taken under this same lock (else one is taken now). */
  private async applyLocked(root: string, target: Tree, current?: Tree, keep: readonly string[] = [], stamp?: number): Promise<ApplyReport> {
    current ??= (await this.captureLocked(root)).tree;
    return applyStored(this.index, root, current, target, stamp === undefined ? this.now : () => stamp, keep);
  }

  /**
   * Restores the workspace (and/or switches the conversation) to checkpoint `plan.id` (restore.ts). The current state
   * is checkpointed first, so the restore itself can be undone.
   */
  async restore(plan: RestorePlan): Promise<{ record: RestoreRecord; report?: ApplyReport }> {
    await this.settled();
    return this.locked(async () =>
      restoreLocked(plan, this.checkpoint(plan.sessionKey, plan.id), {
        index: this.index,
        journalFile: this.journalFile,
        now: this.now,
        loadTree: (id) => this.loadTree(id),
        snapshot: (input) => this.snapshotLocked(input),
        apply: (root, target, current, keep, stamp) => this.applyLocked(root, target, current, keep, stamp),
        ...(this.opts.switchConversation ? { switchConversation: this.opts.switchConversation } : {}),
        logFile: (key) => this.logFile(key),
      }),
    );
  }

  /**
   * Drops what the session no longer keeps from its log (at once: what can be listed and restored), and collects
   * once a tenth of `keep` dropped checkpoints wait (retention.ts `collectionDue`).
   */
  private async retainLocked(sessionKey: string): Promise<void> {
    const { keep, maxAgeMs } = this.settings;
    const files = this.storeFiles();
    let waiting = 0;
    if (pruneLog(this.logFile(sessionKey), { keep, maxAgeMs, now: this.now() }, (n) => (waiting = countDropped(files.stateFile, n))) && collectionDue({ dropped: waiting, keep })) {
      await collectStore(files);
    }
  }

  private storeFiles(): StoreFiles {
    return { packsDir: this.packsDir, treesDir: this.treesDir, sessionsDir: this.sessionsDir, workspacesDir: this.workspacesDir, index: this.index, treeFiles: this.treeFiles, stateFile: path.join(this.dir, 'gc.json') };
  }

  /** Collects what nothing references any more (retention.ts). */
  private gcLocked(): Promise<void> {
    return collectStore(this.storeFiles());
  }

  /**
   * Removes the logs of sessions that no longer exist (`isLive` false) and were last written over `minAgeMs` ago — a
   * chat deleted while the app was closing, or by another process — then collects what nothing references.
   * Looks without the lock first, so the usual case (nothing to remove) costs a directory listing.
   */
  async sweepSessions(isLive: (sessionKey: string) => Promise<boolean>, minAgeMs = 60_000): Promise<number> {
    const stale = () => staleSessionLogs(this.sessionsDir, { now: this.now(), minAgeMs, isLive });
    if ((await stale()).length === 0) return 0;
    return this.locked(async () => {
      const files = await stale();
      for (const f of files) rmSync(f, { force: true });
      if (files.length) await this.gcLocked();
      return files.length;
    });
  }

  /** Removes a session's checkpoints (with the session) and collects what nothing references any more. */
  async deleteSession(sessionKey: string): Promise<void> {
    await this.settled(); // a turn's checkpoint still committing (the run has ended) would bring its log back
    return this.locked(async () => {
      rmSync(this.logFile(sessionKey), { force: true });
      await this.gcLocked();
    });
  }

  /** Finishes an interrupted operation now (start-up), if there is one. */
  recoverNow(): Promise<void> {
    if (!existsSync(this.journalFile) && !hasPending(this.dir)) return Promise.resolve();
    return this.locked(async () => undefined);
  }

  /**
   * Bytes the kept checkpoints take on disk (Settings): what dropped checkpoints left waiting for a collection is
   * collected first, so the figure never counts it.
   */
  async usage(): Promise<{ bytes: number; sessions: number }> {
    // Looked at without the lock first: the usual case (nothing waiting, or no store yet) neither waits for a turn's
    // snapshot nor creates the store.
    const stateFile = this.storeFiles().stateFile;
    if (!existsSync(this.sessionsDir) || readDropped(stateFile) === 0) return this.diskUsage();
    return this.locked(async () => {
      if (readDropped(stateFile) > 0) await this.gcLocked();
      return this.diskUsage();
    });
  }

  /** Bytes the store takes on disk now (garbage not collected yet included). */
  diskUsage(): { bytes: number; sessions: number } {
    return diskUsage([this.packsDir, this.treesDir, this.sessionsDir, this.workspacesDir], this.sessionsDir);
  }
}
