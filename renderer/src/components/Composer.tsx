import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { activeRun, editLastMessage, sendMessage, stopRun, useChat } from '../store/chat-store.js';
import { QueueChips } from './QueueChips.js';
import { SlashMenu, useSlashItems, type SlashItem } from './SlashMenu.js';
import { slashMenuFor } from '../lib/commands.js';
import { openHelp } from './HelpSheet.js';
import { addFiles, restoreAttachments, takeAttachments, useAttach } from '../attachments/attach-store.js';
import { AttachmentTray } from '../attachments/AttachmentTray.js';
import { MentionMenu } from '../attachments/MentionMenu.js';
import { useFileDrop, useMention } from '../attachments/use-composer-attach.js';
import '../attachments/attachments.css';
import { BudgetWarning } from '../usage/BudgetWarning.js';
import '../usage/usage.css';

const OFFLINE_TEXT: Record<string, React.ReactNode> = {
  connecting: 'Reconnecting…',
  closed: 'Reconnecting…',
  unauthorized: (
    <>
      This link no longer works: the server was restarted with a new access token. Open the new link that <code>npm run web</code> printed in its
      terminal.
    </>
  ),
};

/**
 * Message box: Enter sends, Shift+Enter adds a line, Esc stops the running reply, ↑ in an empty box edits the last
 * message. While the connection is down nothing can be sent (the draft stays here) and a reconnecting line shows.
 */
export function Composer() {
  const [text, setText] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  const running = useChat((s) => activeRun(s.turns) !== undefined);
  const sending = useChat((s) => s.sending);
  const connection = useChat((s) => s.connection);
  const failed = useChat((s) => s.failedReconnects ?? 0);
  const editRequest = useChat((s) => s.editRequest);
  const sessionKey = useChat((s) => s.sessionKey);
  const online = connection === 'open';
  // X3: attachments (paste, drop, Attach, @-mentions) ride with the message.
  const attached = useAttach((s) => s.items.length);
  const uploading = useAttach((s) => s.uploading > 0);
  const drop = useFileDrop();
  const mention = useMention(text, setText, box);
  const picker = useRef<HTMLInputElement>(null);
  const canSend = (text.trim() !== '' || attached > 0) && !uploading && !sending && online;

  useEffect(() => {
    if (editRequest) {
      setText(editRequest.text);
      box.current?.focus();
    }
  }, [editRequest]);
  useEffect(() => box.current?.focus(), [sessionKey]);

  // issue 18 item 14: `/` lists the commands; ↑/↓, Enter or Tab, Esc
  const [menuClosedFor, setMenuClosedFor] = useState<string>();
  const menuState = menuClosedFor === text ? undefined : slashMenuFor(text);
  const items = useSlashItems(menuState);
  const [index, setIndex] = useState(0);
  useEffect(() => setIndex(0), [text]);
  const menuOpen = items.length > 0;

  const send = async (draft: string): Promise<void> => {
    if (draft.trim() === '/help') {
      setText('');
      openHelp();
      return;
    }
    const attachments = takeAttachments();
    setText('');
    if (!(await sendMessage(draft, attachments))) {
      setText(draft); // the gateway refused it: the draft comes back
      restoreAttachments(attachments);
    }
    box.current?.focus();
  };

  const submit = async (e?: FormEvent): Promise<void> => {
    e?.preventDefault();
    if (!canSend) return;
    await send(text);
  };

  const pick = (item: SlashItem): void => {
    if (item.run && online && !sending) void send(item.insert);
    else setText(item.insert);
    box.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.nativeEvent.isComposing) return;
    if (mention.onKeyDown(e)) return;
    if (menuOpen) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setIndex((i) => (i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
        return;
      }
      if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
        e.preventDefault();
        pick(items[Math.min(index, items.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault(); // closes the menu, never stops the reply
        setMenuClosedFor(text);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void submit();
    } else if (e.key === 'ArrowUp' && text === '' && editLastMessage()) {
      e.preventDefault();
    }
  };

  return (
    <form
      className={`composer${drop.over ? ' drag-over' : ''}`}
      onSubmit={(e) => void submit(e)}
      aria-busy={sending}
      onDragOver={drop.onDragOver}
      onDragLeave={drop.onDragLeave}
      onDrop={drop.onDrop}
    >
      <QueueChips />
      <BudgetWarning sessionKey={sessionKey} />
      <AttachmentTray />
      <MentionMenu items={mention.items} active={mention.active} onPick={mention.pick} />
      {!online && (
        <div className={`offline offline-${connection}`} role="status" data-testid="offline">
          {connection !== 'unauthorized' && <span className="spinner" aria-hidden="true" />}
          {OFFLINE_TEXT[connection]}
          {connection !== 'unauthorized' && <span className="muted"> Your message is kept here and can be sent once the connection is back.</span>}
          {connection === 'closed' && failed >= 3 && (
            <span data-testid="offline-hint">
              {' '}
              Still no answer from {window.location.host}. If you restarted <code>npm run web</code>, open the link it printed in its terminal.
            </span>
          )}
        </div>
      )}
      <SlashMenu items={items} index={index} onPick={pick} />
      <div className="composer-row">
        <textarea
          ref={box}
          aria-label="Message"
          aria-expanded={menuOpen}
          aria-controls={menuOpen ? 'slash-menu' : undefined}
          aria-activedescendant={menuOpen ? `slash-${index}` : undefined}
          aria-autocomplete="list"
          placeholder={running ? 'Queue a follow-up…' : 'Message the assistant…  (/ for commands, Enter to send)'}
          value={text}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          onChange={(e) => {
            setText(e.target.value);
            mention.update();
          }}
          onKeyDown={onKeyDown}
          onPaste={drop.onPaste}
          onClick={mention.update}
        />
        <div className="composer-actions">
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            data-testid="attach-input"
            onChange={(e) => {
              void addFiles([...(e.target.files ?? [])]);
              e.target.value = '';
            }}
          />
          <button type="button" className="btn" title="Attach images or text files (or paste / drop them here)" onClick={() => picker.current?.click()}>
            Attach
          </button>
          {running && (
            <button type="button" className="btn btn-stop" onClick={() => void stopRun()} title="Stop (Esc)">
              Stop
            </button>
          )}
          <button type="submit" className="btn btn-primary" disabled={!canSend}>
            Send
          </button>
        </div>
      </div>
    </form>
  );
}
