/**
 * X2 restore side of the checkpoint store, run by store.ts under its lock (its header explains the lock and the
 * journal): what a restore would change (a capture of the folder now, nothing stored, compared with the checkpoint's
 * tree), making a folder match a stored tree, and the restore itself — the current state checkpointed first (so the
 * restore can be undone), the journal written before the folder changes (recovery.ts rolls it forward after a kill),
 * the conversation switched, the restore recorded in the session's log.
 */
import { applyTree, type ApplyReport } from './apply.js';
import { captureTree, type CaptureOptions } from './capture.js';
import { appendLog, type CheckpointRecord, type RestoreRecord } from './log.js';
import { CorruptObjectError, ObjectReader, type ObjectIndex } from './objects.js';
import { clearJournal, newCheckpointId, writeJournal } from './layout.js';
import type { RestorePlan, SnapshotInput, SwitchConversation } from './store-types.js';
import { diffTrees, summarizeChanges, type Tree, type TreeChange } from './tree.js';

export interface RestorePreview {
  changes: TreeChange[];
  summary: ReturnType<typeof summarizeChanges>;
  /** Paths the checkpoint skipped (a restore leaves them as they are). */
  skipped: number;
}

/** What making `root` match `target` would change now (`capture` has no writer: nothing is stored). */
export async function previewRestore(root: string, target: Tree, capture: CaptureOptions): Promise<RestorePreview> {
  const { tree } = await captureTree(root, capture);
  const changes = diffTrees(tree, target);
  return { changes, summary: summarizeChanges(changes), skipped: target.skipped.length };
}

/** Makes `root` match `target` from `current` (a capture of it taken under the same lock), contents from the packs. */
export async function applyStored(index: ObjectIndex, root: string, current: Tree, target: Tree, now: () => number): Promise<ApplyReport> {
  index.refresh(); // where every content is: read only by operations that read contents
  const reader = new ObjectReader(index);
  try {
    return await applyTree(root, current, target, reader, now);
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
  /** Makes `root` match `target`; `current` is the capture just checkpointed. */
  apply(root: string, target: Tree, current: Tree): Promise<ApplyReport>;
  switchConversation?: SwitchConversation;
  logFile(sessionKey: string): string;
}

/** Restores the workspace (and/or switches the conversation) to checkpoint `target` of `plan` (under the lock). */
export async function restoreLocked(plan: RestorePlan, target: CheckpointRecord, d: RestoreDeps): Promise<{ record: RestoreRecord; report?: ApplyReport }> {
  const targetTree = d.loadTree(target.tree);
  if (targetTree.root !== target.root) throw new CorruptObjectError(`Checkpoint ${target.id} names a tree of another folder (${targetTree.root}); nothing was changed.`);
  d.index.refresh(); // a restore reads contents anyway: its checkpoint of the current state dedupes against all
  const before = await d.snapshot({
    sessionKey: plan.sessionKey,
    root: target.root,
    kind: 'before-restore',
    label: `Before restoring to: ${target.label}`,
  });
  const record: RestoreRecord = {
    type: 'restore',
    id: newCheckpointId(d.now()),
    at: d.now(),
    target: target.id,
    before: before.id,
    ...(plan.undoOf ? { undoOf: plan.undoOf } : {}),
    files: plan.files,
    ...(plan.conversation ? { conversation: plan.conversation } : {}),
    summary: plan.files ? summarizeChanges(diffTrees(d.loadTree(before.tree), targetTree)) : { modified: 0, created: 0, deleted: 0 },
  };
  writeJournal(d.journalFile, { op: 'restore', sessionKey: plan.sessionKey, root: target.root, startedAt: d.now(), ...(plan.files ? { tree: target.tree } : {}), record });
  const report = plan.files ? await d.apply(target.root, targetTree, d.loadTree(before.tree)) : undefined;
  if (plan.conversation) await d.switchConversation?.(plan.sessionKey, plan.conversation.to);
  appendLog(d.logFile(plan.sessionKey), [record]);
  clearJournal(d.journalFile);
  return { record, ...(report ? { report } : {}) };
}
