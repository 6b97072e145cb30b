/**
 * X2 restore side of the checkpoint store, run by store.ts under its lock (its header explains the lock and the
 * journal): what a restore would change (a capture of the folder now, nothing stored, compared with the checkpoint's
 * tree), making a folder match a stored tree, and the restore itself — the current state checkpointed first (so the
 * restore can be undone), the journal written before the folder changes (recovery.ts rolls it forward after a kill),
 * the conversation switched, the restore recorded in the session's log.
 */
import { ApplyStepError, applyTree, moveBack, restoreChanges, uncapturedInTheWay, type ApplyReport } from './apply.js';
import { captureTree, type CaptureOptions } from './capture.js';
import { appendLog, readLog, type CheckpointRecord, type RestoreRecord } from './log.js';
import { CorruptObjectError, ObjectReader, type ObjectIndex } from './objects.js';
import { clearJournal, newCheckpointId, writeJournal } from './layout.js';
import type { RestorePlan, SnapshotInput, SwitchConversation } from './store-types.js';
import { summarizeChanges, type Tree, type TreeChange } from './tree.js';
import { keptAsideName, rootMoved, WorkspaceMovedError } from './workspace-fs.js';

/** A restore that could not be made (CLI exit 1, gateway bad_request): the message says in what state the folder is. */
export class RestoreFailedError extends Error {
  override name = 'RestoreFailedError';
}

export interface RestorePreview {
  changes: TreeChange[];
  summary: ReturnType<typeof summarizeChanges>;
  /** Paths the checkpoint skipped (a restore leaves them as they are). */
  skipped: number;
}

/** What making `root` match `target` would change now (`capture` has no writer: nothing is stored). */
export async function previewRestore(root: string, target: Tree, capture: CaptureOptions): Promise<RestorePreview> {
  const { tree } = await captureTree(root, capture);
  const changes = restoreChanges(tree, target);
  return { changes, summary: summarizeChanges(changes), skipped: target.skipped.length };
}

/** Makes `root` match `target` from `current` (a capture of it taken under the same lock), contents from the packs. */
export async function applyStored(index: ObjectIndex, root: string, current: Tree, target: Tree, now: () => number, keep: readonly string[] = []): Promise<ApplyReport> {
  index.refresh(); // where every content is: read only by operations that read contents
  const reader = new ObjectReader(index);
  try {
    return await applyTree(root, current, target, reader, now, keep);
  } finally {
    reader.close();
  }
}

export interface RestoreDeps {
  index: ObjectIndex;
  journalFile: string;
  now: () => number;
  loadTree(id: string): Tree;
  /** Checkpoints the folder as it is now (under the lock). */
  snapshot(input: SnapshotInput): Promise<CheckpointRecord>;
  /**
   * Makes `root` match `target` but the paths in `keep`; `current` is the capture just checkpointed (none: one is
   * taken); `stamp` names what is moved aside.
   */
  apply(root: string, target: Tree, current: Tree | undefined, keep: readonly string[], stamp: number): Promise<ApplyReport>;
  switchConversation?: SwitchConversation;
  logFile(sessionKey: string): string;
}

/** Restores the workspace (and/or switches the conversation) to checkpoint `target` of `plan` (under the lock). */
export async function restoreLocked(plan: RestorePlan, target: CheckpointRecord, d: RestoreDeps): Promise<{ record: RestoreRecord; report?: ApplyReport }> {
  const targetTree = d.loadTree(target.tree);
  if (targetTree.root !== target.root) throw new CorruptObjectError(`Checkpoint ${target.id} names a tree of another folder (${targetTree.root}); nothing was changed.`);
  // The workspace replaced by a link (or a folder above it moved, and a link put there): a restore through it would
  // capture, write and delete in the folder the link names — a person's home. Checked again, on the opened folder
  // itself, where the writes start (WorkspaceFs exactRoot).
  if (plan.files && rootMoved(target.root)) throw new RestoreFailedError(`${new WorkspaceMovedError(target.root).message}: nothing was changed.`);
  d.index.refresh(); // a restore reads contents anyway: its checkpoint of the current state dedupes against all
  const before = await d.snapshot({
    sessionKey: plan.sessionKey,
    root: target.root,
    kind: 'before-restore',
    label: `Before restoring to: ${target.label}`,
  });
  const beforeTree = d.loadTree(before.tree);
  // What stands uncaptured where the target writes (ignored now, over a size cap) is in no checkpoint: it is moved
  // aside under a name known now (recorded, so that the undo leaves it alone and moves it back).
  const stamp = d.now();
  const asides = plan.files ? uncapturedInTheWay(target.root, beforeTree, targetTree).map((p) => keptAsideName(p, stamp)) : [];
  const { keep, undone } = keptFor(plan.undoOf, d.logFile(plan.sessionKey));
  const record: RestoreRecord = {
    type: 'restore',
    id: newCheckpointId(d.now()),
    at: d.now(),
    target: target.id,
    before: before.id,
    ...(plan.undoOf ? { undoOf: plan.undoOf } : {}),
    files: plan.files,
    ...(plan.conversation ? { conversation: plan.conversation } : {}),
    ...(asides.length ? { keep: asides, keptAt: stamp } : {}),
    summary: plan.files ? summarizeChanges(restoreChanges(beforeTree, targetTree, keep)) : { modified: 0, created: 0, deleted: 0 },
  };
  writeJournal(d.journalFile, { op: 'restore', sessionKey: plan.sessionKey, root: target.root, startedAt: d.now(), ...(plan.files ? { tree: target.tree } : {}), record });
  let report: ApplyReport | undefined;
  if (plan.files) {
    try {
      report = await d.apply(target.root, targetTree, beforeTree, keep, stamp);
    } catch (err) {
      if (err instanceof WorkspaceMovedError) {
        clearJournal(d.journalFile); // checked before the first change
        throw new RestoreFailedError(`${err.message}: nothing was changed.`);
      }
      // A step failed part-way (a folder made read-only, a disk full): the folder is put back as it was just before
      // (its checkpoint was taken above) — never left half-restored — and the journal dropped. If that fails too, the
      // journal stays: the next operation finishes the restore ("after").
      const why = err instanceof ApplyStepError ? err.message : String((err as Error)?.message ?? err).split('\n')[0];
      try {
        await d.apply(target.root, beforeTree, undefined, [...keep, ...asides], d.now());
        moveBack(target.root, asides, stamp);
      } catch (again) {
        const how = again instanceof ApplyStepError ? again.message : String((again as Error)?.message ?? again).split('\n')[0];
        throw new RestoreFailedError(`Could not restore ${target.root} (${why}), nor put it back as it was (${how}): it is partly restored; the restore is finished at the next start once that is fixed.`);
      }
      clearJournal(d.journalFile);
      throw new RestoreFailedError(`Could not restore ${target.root} (${why}): nothing was changed, the folder is as it was before.`);
    }
    if (undone) moveBack(target.root, keep, undone.keptAt!, beforeTree);
    // Also what the apply moved aside that could not be foreseen (a folder holding files a checkpoint does not
    // capture, where a file goes): the undo leaves it alone too.
    const kept = [...new Set([...asides, ...report.keptAside])].sort();
    if (kept.length) Object.assign(record, { keep: kept, keptAt: stamp });
  }
  if (plan.conversation) await d.switchConversation?.(plan.sessionKey, plan.conversation.to);
  appendLog(d.logFile(plan.sessionKey), [record]);
  clearJournal(d.journalFile);
  return { record, ...(report ? { report } : {}) };
}

/**
 * What the apply of a restore that undoes restore `undoOf` leaves alone: the copies that restore moved aside (not in
 * the checkpoint the undo goes back to — the undo would delete them), which it then moves back.
 */
export function keptFor(undoOf: string | undefined, logFile: string): { keep: string[]; undone?: RestoreRecord } {
  if (!undoOf) return { keep: [] };
  const undone = readLog(logFile).find((r): r is RestoreRecord => r.type === 'restore' && r.id === undoOf);
  if (!undone?.keep?.length || typeof undone.keptAt !== 'number' || !Array.isArray(undone.keep)) return { keep: [] };
  return { keep: undone.keep.filter((p) => typeof p === 'string'), undone };
}
