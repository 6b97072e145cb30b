import { queuedRuns, removeQueued, steerQueued, useChat } from '../store/chat-store.js';
import { queueModeShort } from '../lib/words.js';

/** Messages waiting behind the running reply: their mode, and Remove / Steer. */
export function QueueChips() {
  const turns = useChat((s) => s.turns);
  const queued = queuedRuns(turns);
  if (queued.length === 0) return null;
  return (
    <ul className="queue-chips" aria-label="Waiting to run">
      {queued.map(({ turn, user }) => (
        <li key={turn.id} className="chip" data-testid="queue-chip">
          <span className="chip-mode">{queueModeShort(turn.queue?.mode)}</span>
          <span className="chip-text" title={user?.text}>
            {user?.text ?? 'message'}
          </span>
          {turn.queue?.mode !== 'steer' && (
            <button type="button" className="btn btn-small btn-quiet" onClick={() => void steerQueued(turn.runId!)} title="Give it to the running reply now">
              Steer
            </button>
          )}
          <button type="button" className="btn btn-small btn-quiet" aria-label="Remove from queue" onClick={() => void removeQueued(turn.runId!)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
