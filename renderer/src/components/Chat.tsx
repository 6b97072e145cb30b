import { useEffect } from 'react';
import './chat.css';
import { activeRun, closePalette, newChat, openPalette, stopRun, useChat } from '../store/chat-store.js';
import { CommandPalette } from './CommandPalette.js';
import { HelpSheet, isHelpOpen, openHelp } from './HelpSheet.js';
import { useSessions } from '../store/sessions-store.js';
import { Composer } from './Composer.js';
import { ErrorBanner } from './ErrorBanner.js';
import { MessageList } from './MessageList.js';
import { FindBar } from './FindBar.js';
import { RestoreDialog } from '../checkpoints/RestoreDialog.js';
import { RestoreNotice } from '../checkpoints/RestoreNotice.js';

/** What a screen reader hears: the run's state changes, not every streamed token. */
function LiveStatus() {
  const status = useChat((s) => {
    const last = s.turns.findLast((t) => t.kind === 'assistant');
    return last?.kind === 'assistant' ? last.status : undefined;
  });
  const text =
    status === 'running' ? 'The assistant is replying.' : status === 'done' ? 'Reply finished.' : status === 'stopped' ? 'Reply stopped.' : status === 'error' ? 'The reply failed.' : '';
  return (
    <div className="sr-only" aria-live="polite" role="status">
      {text}
    </div>
  );
}

/** Focus in a field where `?` is a character, not a command. */
const isTyping = (t: EventTarget | null): boolean =>
  t instanceof HTMLElement && (t.isContentEditable || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || (t.tagName === 'INPUT' && (t as HTMLInputElement).type !== 'checkbox' && (t as HTMLInputElement).type !== 'radio'));

/** Chat-wide keys: Esc stops, Ctrl/Cmd+N new chat, Ctrl/Cmd+K palette, ? the keys and commands. */
function useShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && !e.shiftKey && !e.altKey && key === 'k') {
        e.preventDefault();
        if (useChat.getState().palette) closePalette();
        else void openPalette('all');
      } else if (mod && !e.shiftKey && !e.altKey && key === 'n') {
        e.preventDefault();
        newChat();
      } else if (e.key === '?' && !mod && !isTyping(e.target) && !useChat.getState().palette) {
        e.preventDefault();
        openHelp();
      } else if (e.key === 'Escape' && !e.defaultPrevented && !useChat.getState().palette && !isHelpOpen() && activeRun(useChat.getState().turns)) {
        e.preventDefault();
        void stopRun();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function Chat() {
  useShortcuts();
  const sessionKey = useChat((s) => s.sessionKey);
  // Ready: start-up is done and no switch of chats is in flight — the chat shown is the one messages go to.
  const switching = useChat((s) => !!s.switching);
  const ready = useSessions((s) => !!s.started && !s.opening) && !switching;
  return (
    <main className="chat" data-session-key={sessionKey} data-ready={ready ? 'true' : 'false'}>
      <FindBar />
      <MessageList />
      <div className="composer-wrap">
        <RestoreNotice />
        <ErrorBanner />
        <Composer />
      </div>
      <LiveStatus />
      <CommandPalette />
      <HelpSheet />
      <RestoreDialog />
    </main>
  );
}
