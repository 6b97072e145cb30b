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
import { clearJournal, newCheckpointId, writeJournal, type Journal } from './layout.js';
import type { RestorePlan, SnapshotInput, SwitchConversation } from './store-types.js';
import { summarizeChanges, type Tree, type TreeChange } from './tree.js';
import { keptAsideName } from './kept-name.js';
import { rootMoved, WorkspaceMovedError } from './workspace-fs.js';

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
  const inTheWay = plan.files ? uncapturedInTheWay(target.root, beforeTree, targetTree) : [];
  const asides = inTheWay.map((p) => keptAsideName(p, stamp));
  const asideNames = Object.fromEntries(inTheWay.map((p, i) => [asides[i]!, p]));
  const { keep, undone, names } = keptFor(plan.undoOf, d.logFile(plan.sessionKey));
  const record: RestoreRecord = {
    type: 'restore',
    id: newCheckpointId(d.now()),
    at: d.now(),
    target: target.id,
    before: before.id,
    ...(plan.undoOf ? { undoOf: plan.undoOf } : {}),
    files: plan.files,
    ...(plan.conversation ? { conversation: plan.conversation } : {}),
    ...(asides.length ? { keep: asides, keptAt: stamp, keptNames: asideNames } : {}),
    summary: plan.files ? summarizeChanges(restoreChanges(beforeTree, targetTree, keep)) : { modified: 0, created: 0, deleted: 0 },
  };
  const journal: Journal = { op: 'restore', sessionKey: plan.sessionKey, root: target.root, startedAt: d.now(), ...(plan.files ? { tree: target.tree } : {}), record, stamp };
  writeJournal(d.journalFile, journal);
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
      // folder stays partly restored and the restore is recorded so (its undo puts the folder back once the cause
      // is fixed): the store works on.
      const why = firstLine(err);
      try {
        await d.apply(target.root, beforeTree, undefined, [...keep, ...asides], stamp);
        moveBack(target.root, asides, stamp, undefined, asideNames);
      } catch (again) {
        const kept = { ...(err instanceof ApplyStepError ? err.kept : {}), ...(again instanceof ApplyStepError ? again.kept : {}) };
        const state = setAsideIncomplete(journal, `${why}; ${firstLine(again)}`, kept, stamp, { logFile: d.logFile(plan.sessionKey), journalFile: d.journalFile });
        throw new RestoreFailedError(`Could not restore ${target.root} (${why}), nor put it back as it was (${firstLine(again)}): ${state}`);
      }
      clearJournal(d.journalFile);
      throw new RestoreFailedError(`Could not restore ${target.root} (${why}): nothing was changed, the folder is as it was before.`);
    }
    if (undone) moveBack(target.root, keep, undone.keptAt!, beforeTree, names);
    // Also what the apply moved aside that could not be foreseen (a folder holding files a checkpoint does not
    // capture, where a file goes): the undo leaves it alone too.
    const kept = [...new Set([...asides, ...report.keptAside])].sort();
    if (kept.length) Object.assign(record, { keep: kept, keptAt: stamp, keptNames: { ...asideNames, ...report.keptFrom } });
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
export function keptFor(undoOf: string | undefined, logFile: string): { keep: string[]; undone?: RestoreRecord; names?: Record<string, string> } {
  if (!undoOf) return { keep: [] };
  const undone = readLog(logFile).find((r): r is RestoreRecord => r.type === 'restore' && r.id === undoOf);
  if (!undone?.keep?.length || typeof undone.keptAt !== 'number' || !Array.isArray(undone.keep)) return { keep: [] };
  const names = undone.keptNames && typeof undone.keptNames === 'object' ? undone.keptNames : undefined;
  return { keep: undone.keep.filter((p) => typeof p === 'string'), undone, ...(names ? { names } : {}) };
}

const firstLine = (err: unknown): string => (err instanceof ApplyStepError ? err.message : String((err as Error)?.message ?? err).split('\n')[0]!);

/** A session key as a word of a shell command the person may copy (quoted when it has to be). */
export const shellWord = (s: string): string => (/^[\w.:@%+=,/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * A restore that could neither be finished nor put back (`why`): the folder is left as it is — partly restored — and
 * the restore recorded in the session's log as it stands (`incomplete`; its conversation not switched; what it moved
 * aside, `kept` too, named), so that its undo puts the folder back exactly as it was before it once the cause is
 * fixed; the journal goes, so every later operation of the store works. Returns what to tell the person: the state
 * of the folder and what to do.
 */
export function setAsideIncomplete(
  j: Extract<Journal, { op: 'restore' }>,
  why: string,
  kept: Readonly<Record<string, string>>,
  stamp: number | undefined,
  files: { logFile: string; journalFile: string },
): string {
  const { conversation: _notSwitched, ...rest } = j.record;
  const names = { ...(j.record.keptNames ?? {}), ...(stamp !== undefined ? kept : {}) };
  const keep = [...new Set([...(Array.isArray(j.record.keep) ? j.record.keep : []), ...Object.keys(names)])].sort();
  const record: RestoreRecord = { ...rest, incomplete: why, ...(keep.length && stamp !== undefined ? { keep, keptAt: stamp, keptNames: names } : {}) };
  const log = readLog(files.logFile);
  if (!log.some((r) => r.id === record.id)) appendLog(files.logFile, [record]);
  clearJournal(files.journalFile);
  const canUndo = log.some((r) => r.type === 'checkpoint' && r.id === record.before);
  const key = shellWord(j.sessionKey);
  return `${j.root} is partly restored (some files as at checkpoint ${record.target}, the rest as before). Nothing is lost: once that is fixed, ${
    canUndo ? `\`agentdesk checkpoints undo --session ${key}\` (Undo restore in the app) puts it back as it was before` : `restore a checkpoint (\`agentdesk checkpoints list --session ${key}\`)`
  }.`;
}
