/**
 * X2 crash recovery: finishes the operation a killed process left in the checkpoint store's journal (called by
 * store.ts under the store lock, before any other operation). A snapshot never changed the folder: its journal is
 * dropped ("before"). A restore is rolled forward — the folder is made to match its checkpoint, the conversation
 * switched, the restore recorded ("after"); if that cannot be done it is put back ("before"), and if neither can, the
 * folder is left as it is and the restore recorded as incomplete (its undo puts the folder back once the cause is
 * fixed): a journal is never left for every later operation to fail on. The process that finds it says so (`notice`).
 */
import { ApplyStepError, moveBack } from './apply.js';
import { appendLog, readLog } from './log.js';
import { keptFor, setAsideIncomplete } from './restore.js';
import { clearJournal, readJournal, sweepTemporaries } from './layout.js';
import type { PendingRecord } from './pending.js';
import type { SwitchConversation } from './store-types.js';
import type { Tree } from './tree.js';
import { rootMoved, WorkspaceMovedError } from './workspace-fs.js';

export interface RecoveryDeps {
  journalFile: string;
  packsDir: string;
  /** Folders that may hold temporary files of the killed process. */
  dirs: readonly string[];
  loadTree(id: string): Tree;
  /** Makes `root` match `tree` but the paths in `keep`, naming what it moves aside with `stamp` (under the lock). */
  apply(root: string, tree: Tree, keep: readonly string[], stamp: number | undefined): Promise<unknown>;
  switchConversation?: SwitchConversation;
  logFile(sessionKey: string): string;
  notice(line: string): void;
}

export async function recoverInterrupted(d: RecoveryDeps): Promise<void> {
  const j = readJournal(d.journalFile);
  if (!j) return;
  sweepTemporaries(d.packsDir, d.dirs);
  if (j.op === 'snapshot') {
    clearJournal(d.journalFile);
    d.notice(`A checkpoint of session "${j.sessionKey}" was interrupted; ${j.root} was not changed by it (it is as before) and the partial checkpoint was discarded.`);
    return;
  }
  const why = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];
  const logFile = d.logFile(j.sessionKey);
  const before = readLog(logFile).find((r) => r.type === 'checkpoint' && r.id === j.record.before);
  // What the restore moves aside, by the time stamp it names them with (journal: the stamp; else the record's).
  const stamp = typeof j.stamp === 'number' ? j.stamp : typeof j.record.keptAt === 'number' ? j.record.keptAt : undefined;
  const asides = Array.isArray(j.record.keep) ? j.record.keep.filter((p) => typeof p === 'string') : [];
  if (j.tree) {
    let tree: Tree | undefined;
    let failed: unknown;
    try {
      tree = d.loadTree(j.tree);
    } catch (err) {
      failed = err; // a damaged store: the restore cannot be finished, the folder is put back from its own checkpoint
    }
    // A journal never moves a tree to another folder (a damaged or crafted one is dropped, the folder untouched).
    if (tree && tree.root !== j.root) {
      clearJournal(d.journalFile);
      d.notice(`An interrupted restore of session "${j.sessionKey}" named a checkpoint of another folder; it was dropped and ${j.root} was not changed.`);
      return;
    }
    if (rootMoved(j.root)) {
      clearJournal(d.journalFile);
      d.notice(`An interrupted restore of session "${j.sessionKey}" was not finished: ${new WorkspaceMovedError(j.root).message}; nothing more was changed.`);
      return;
    }
    // As the restore would have: what it moves aside named as its record says, an undo's copies left alone and moved back.
    const { keep, undone, names } = keptFor(j.record.undoOf, logFile);
    if (tree) {
      try {
        await d.apply(j.root, tree, keep, stamp);
      } catch (err) {
        failed = err;
      }
    }
    if (failed !== undefined) {
      // It cannot be finished now (a folder made read-only since the kill): put back as it was before the restore,
      // from the checkpoint the restore took first — fully before, never half.
      let back: unknown = new Error(`its checkpoint ${j.record.before} of the folder is gone`);
      if (before?.type === 'checkpoint') {
        try {
          await d.apply(j.root, d.loadTree(before.tree), [...keep, ...asides], stamp);
          if (stamp !== undefined) moveBack(j.root, asides, stamp, undefined, j.record.keptNames);
          clearJournal(d.journalFile);
          d.notice(`An interrupted restore of session "${j.sessionKey}" could not be completed (${why(failed)}): ${j.root} was put back as it was before that restore.`);
          return;
        } catch (err) {
          back = err;
        }
      }
      // Neither: the folder stays as it is, partly restored, and the restore is recorded as such (its undo puts the
      // folder back once the cause is fixed) — never a journal that every later operation of the store fails on.
      const kept = Object.assign({}, ...[failed, back].map((e) => (e instanceof ApplyStepError ? e.kept : {}))) as Record<string, string>;
      const state = setAsideIncomplete(j, `${why(failed)}; ${why(back)}`, kept, stamp, { logFile, journalFile: d.journalFile });
      d.notice(`An interrupted restore of session "${j.sessionKey}" could neither be finished (${why(failed)}) nor put back (${why(back)}): ${state}`);
      return;
    }
    if (undone && before?.type === 'checkpoint') moveBack(j.root, keep, undone.keptAt!, d.loadTree(before.tree), names);
  }
  let conversation = '';
  if (j.record.conversation) {
    try {
      await d.switchConversation?.(j.sessionKey, j.record.conversation.to);
    } catch (err) {
      // The files are restored; the chat stays where it was (recorded so: the undo does not switch it either).
      delete j.record.conversation;
      conversation = ` The conversation could not be switched (${why(err)}): it continues where it was.`;
    }
  }
  if (!readLog(logFile).some((r) => r.id === j.record.id)) appendLog(logFile, [j.record]);
  clearJournal(d.journalFile);
  d.notice(`An interrupted restore of session "${j.sessionKey}" was completed: ${j.root} is now as it was at checkpoint ${j.record.target} (after the restore).${conversation}`);
}

export interface PendingRecoveryDeps {
  /** Commits the checkpoint from a capture taken now, patched with the record's pre-images (removes the record). */
  finish(r: PendingRecord): Promise<unknown>;
  /** The checkpoint is already in the session's log (the process was killed after its commit). */
  logHas(r: PendingRecord): boolean;
  remove(r: PendingRecord): void;
  notice(line: string): void;
}

/**
 * Finishes the copy-on-write checkpoints of processes killed after a `write`/`edit` ran and before its checkpoint was
 * committed (pending.ts). The folder is captured now and the changed paths put back as they were before that change;
 * a record that cannot be finished (its folder gone) is kept for a later start and said once per process.
 */
export async function recoverPending(records: readonly PendingRecord[], d: PendingRecoveryDeps): Promise<void> {
  for (const r of records) {
    const paths = r.preimages.map((p) => p.p).join(', ');
    if (d.logHas(r)) {
      d.remove(r);
      continue;
    }
    try {
      await d.finish(r);
      d.notice(`The checkpoint before a change of session "${r.input.sessionKey}" was interrupted; it was completed from the saved copy of ${paths} (the folder as it was before that change, other files as they are now).`);
    } catch (err) {
      if (warned.has(r.id)) continue;
      warned.add(r.id);
      d.notice(`The checkpoint before a change of session "${r.input.sessionKey}" could not be completed yet (${(err as Error).message}); it is tried again at the next start.`);
    }
  }
}

const warned = new Set<string>();
