import { createPatch } from 'diff';
import { useEffect, useMemo, useRef } from 'react';
import type { CheckpointDiff, RestoreMode } from '../../../preload/contract.js';
import { DiffView } from '../components/DiffView.js';
import { closeRestore, confirmRestore, showDiff, useCheckpoints } from './checkpoint-store.js';
import './checkpoints.css';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const KIND_TEXT = { modified: 'changed back', created: 'brought back', deleted: 'removed' } as const;

function Diff({ diff }: { diff: CheckpointDiff }) {
  const text = useMemo(
    // createPatch's "Index:" and "=====" lines say nothing here: the diff starts at its ---/+++ header.
    () => (diff.binary ? '' : createPatch(diff.path, diff.current ?? '', diff.restored ?? '', 'now', 'after the restore', { context: 3 }).split('\n').slice(2).join('\n')),
    [diff],
  );
  if (diff.binary) return <p className="muted">Binary or large file: no text diff.</p>;
  return <DiffView diff={text} className="restore-diff" testId="restore-diff" />;
}

/** Restore…: what would change (N modified, M created, K deleted; a diff on click), then one of three choices. */
export function RestoreDialog() {
  const dialog = useCheckpoints((s) => s.dialog);
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!dialog) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        closeRestore();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [dialog !== undefined]);
  useEffect(() => first.current?.focus(), [dialog?.preview !== undefined]);
  if (!dialog) return null;
  const { checkpoint, preview } = dialog;
  const s = preview?.summary;
  const nothing = s && s.modified + s.created + s.deleted === 0;
  const choose = (mode: RestoreMode) => void confirmRestore(mode);
  return (
    <div className="restore-backdrop" onMouseDown={(e) => e.target === e.currentTarget && closeRestore()}>
      <div className="restore-dialog" role="dialog" aria-modal="true" aria-labelledby="restore-title" data-testid="restore-dialog">
        <h2 id="restore-title">Restore to before “{checkpoint.label || 'this message'}”</h2>
        {!preview && !dialog.error && <p className="muted">Comparing the folder with the checkpoint…</p>}
        {s && (
          <p data-testid="restore-summary">
            {nothing
              ? 'The files are already as they were before this message.'
              : `Restoring the files: ${plural(s.modified, 'file')} changed back, ${s.created} brought back, ${s.deleted} removed.`}
            {preview!.skipped > 0 && ` ${plural(preview!.skipped, 'file')} too large to keep stay as they are.`}
          </p>
        )}
        {preview && preview.changes.length > 0 && (
          <ul className="restore-changes" aria-label="Changes">
            {preview.changes.map((c) => (
              <li key={c.path}>
                <button type="button" className="link restore-file" onClick={() => void showDiff(c.path)} aria-expanded={dialog.diff?.path === c.path}>
                  <span className={`restore-kind restore-kind-${c.kind}`}>{KIND_TEXT[c.kind]}</span> <code>{c.path}</code>
                  {c.type !== 'file' && <span className="muted"> ({c.type})</span>}
                </button>
                {dialog.diff?.path === c.path && ('loading' in dialog.diff ? <p className="muted">Loading…</p> : <Diff diff={dialog.diff} />)}
              </li>
            ))}
            {preview.more > 0 && <li className="muted">…and {preview.more} more</li>}
          </ul>
        )}
        {dialog.error && (
          <p className="restore-error" role="alert">
            {dialog.error}
          </p>
        )}
        <p className="muted restore-hint">The current state is kept first: “Undo restore” takes any of these back.</p>
        <div className="restore-actions">
          <button type="button" className="btn btn-quiet-text restore-cancel" onClick={closeRestore}>
            Cancel
          </button>
          <button ref={first} type="button" className="btn btn-primary" disabled={!preview || dialog.busy} onClick={() => choose('files')} data-testid="restore-files">
            Restore files
          </button>
          <button type="button" className="btn" disabled={!preview || dialog.busy || !checkpoint.sessionId} onClick={() => choose('both')} data-testid="restore-both">
            Files and conversation
          </button>
          <button type="button" className="btn" disabled={dialog.busy || !checkpoint.sessionId} onClick={() => choose('conversation')} data-testid="restore-conversation">
            Conversation only
          </button>
        </div>
      </div>
    </div>
  );
}
