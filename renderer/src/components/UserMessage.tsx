import { memo, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { UserTurn } from '../store/types.js';
import { useChat } from '../store/chat-store.js';
import { busy, editMessage } from '../store/branch-actions.js';
import { RestoreAction } from '../checkpoints/RestoreAction.js';
import { MessageAttachments } from '../attachments/MessageAttachments.js';
import { CopyButton } from './CopyButton.js';

/** The person's message: Copy, and Edit — the edited text is sent and the chat goes on from there (issue 18 item 15). */
export const UserMessage = memo(function UserMessage({ turn }: { turn: UserTurn }) {
  const [editing, setEditing] = useState(false);
  const running = useChat((s) => busy(s.turns));
  const sent = !turn.pending || !!turn.runId;
  return (
    <article className="msg msg-user" data-testid="user-message" data-pending={turn.pending && !turn.runId ? 'true' : undefined}>
      <MessageAttachments items={turn.attachments} />
      {editing ? (
        <EditBox turn={turn} onDone={() => setEditing(false)} />
      ) : (
        <div className="msg-user-bubble">{turn.text}</div>
      )}
      {!editing && sent && (
        <div className="msg-user-actions">
          <CopyButton text={turn.text} label="Copy text" />
          <button
            type="button"
            className="btn btn-quiet btn-small"
            data-testid="edit-message"
            disabled={running}
            title={running ? 'Wait for the reply to finish (or stop it) to edit' : 'Edit and send again; this version stays in the chat list as “Earlier version: …”'}
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
        </div>
      )}
      <RestoreAction turn={turn} />
    </article>
  );
});

function EditBox({ turn, onDone }: { turn: UserTurn; onDone: () => void }) {
  const [text, setText] = useState(turn.text);
  const box = useRef<HTMLTextAreaElement>(null);
  const running = useChat((s) => busy(s.turns));
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const submit = async () => {
    if (text.trim() === '' || running) return;
    if (await editMessage(turn.id, text)) onDone();
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void submit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onDone();
    }
  };
  return (
    <div className="msg-edit" data-testid="edit-box">
      <textarea ref={box} aria-label="Edited text" value={text} rows={Math.min(8, Math.max(2, text.split('\n').length))} onChange={(e) => setText(e.target.value)} onKeyDown={onKey} />
      <div className="msg-edit-actions">
        <span className="muted">The chat goes on from here; this version stays in the chat list.</span>
        <button type="button" className="btn btn-small" onClick={onDone}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary btn-small" disabled={text.trim() === '' || running} onClick={() => void submit()}>
          Send
        </button>
      </div>
    </div>
  );
}
