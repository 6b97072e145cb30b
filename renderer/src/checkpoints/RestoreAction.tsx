import { busy } from '../store/branch-actions.js';
import { useChat } from '../store/chat-store.js';
import type { AssistantTurn, UserTurn } from '../store/types.js';
import { checkpointFor, openRestore, useCheckpoints, userTurnBefore } from './checkpoint-store.js';
import './checkpoints.css';

/** "Restore…" under a user message whose turn changed files (a checkpoint was taken before the first change). */
export function RestoreAction({ turn }: { turn: UserTurn }) {
  const checkpoint = useCheckpoints((s) => checkpointFor(turn, s.list));
  const running = useChat((s) => busy(s.turns));
  if (!checkpoint) return null;
  return (
    <div className="restore-row">
      <button
        type="button"
        className="link restore-open"
        data-testid="restore-open"
        disabled={running}
        title={running ? 'Wait for the reply to finish (or stop it) to restore.' : 'Put the files and/or the conversation back to before this message'}
        onClick={() => void openRestore(checkpoint)}
      >
        Restore…
      </button>
    </div>
  );
}

/** The timeline's mark on a turn that changed files: a checkpoint was taken before its first change. */
export function ChangedFilesMark({ turn }: { turn: AssistantTurn }) {
  // Both stores: the marks follow the checkpoint list and the turns, whichever arrives last after a reload.
  const user = useChat((s) => userTurnBefore(s.turns, turn, s.firstItemIndex));
  const marked = useCheckpoints((s) => {
    if (s.list.length === 0) return false;
    if (turn.runId && s.list.some((c) => c.runId === turn.runId)) return true;
    return user !== undefined && checkpointFor(user, s.list) !== undefined;
  });
  if (!marked) return null;
  return (
    <span className="badge badge-changed" data-testid="changed-files" title="This turn changed files; “Restore…” on its message puts them back">
      Changed files
    </span>
  );
}
