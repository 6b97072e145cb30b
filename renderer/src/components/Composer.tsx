import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { activeRun, sendMessage, stopRun, useChat } from '../store/chat-store.js';

/** Message box: Enter sends, Shift+Enter adds a line; Stop appears while a run is active. */
export function Composer() {
  const [text, setText] = useState('');
  const running = useChat((s) => activeRun(s.turns) !== undefined);
  const sending = useChat((s) => s.sending);
  const canSend = text.trim() !== '' && !sending;

  const submit = async (e?: FormEvent): Promise<void> => {
    e?.preventDefault();
    if (!canSend) return;
    const draft = text;
    setText('');
    if (!(await sendMessage(draft))) setText(draft); // keep the draft if the request failed
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form className="composer" onSubmit={(e) => void submit(e)}>
      <textarea
        aria-label="Message"
        placeholder={running ? 'Queue a follow-up…' : 'Message the assistant…  (Enter to send, Shift+Enter for a new line)'}
        value={text}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {running && (
          <button type="button" className="btn btn-stop" onClick={() => void stopRun()}>
            Stop
          </button>
        )}
        <button type="submit" className="btn btn-primary" disabled={!canSend}>
          Send
        </button>
      </div>
    </form>
  );
}
