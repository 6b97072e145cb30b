import { useEffect } from 'react';
import type { MenuCommand } from '../../preload/contract.js';
import { Chat } from './components/Chat.js';
import { TopBar } from './components/TopBar.js';
import { EarlierBar } from './components/frame/EarlierBar.js';
import { Onboarding } from './components/frame/Onboarding.js';
import { Settings } from './components/frame/Settings.js';
import { Sidebar } from './components/frame/Sidebar.js';
import { Toasts } from './components/frame/UndoToast.js';
import { NARROW_QUERY, useNarrow } from './lib/media.js';
import { closeDrawer, newChat, showView, toggleSidebar, useSessions } from './store/sessions-store.js';
import { setWorkspace } from './store/settings-store.js';
import { useChat } from './store/chat-store.js';
import './components/frame/frame.css';

/**
 * Ctrl/Cmd+, opens Settings (Ctrl/Cmd+N, K and Esc belong to the chat view). The desktop app's menu sends the same
 * commands; the chat view asks for a settings section with an `agentdesk:open-settings` event.
 */
function useFrameCommands(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
      if (mod && e.key === ',') {
        e.preventDefault();
        showView('settings');
      } else if (mod && e.key.toLowerCase() === 'b') {
        e.preventDefault();
        toggleSidebar(window.matchMedia(NARROW_QUERY).matches);
      } else if (e.key === 'Escape' && useSessions.getState().drawer) {
        e.preventDefault();
        closeDrawer();
      }
    };
    const onOpenSettings = (e: Event) => {
      const section = (e as CustomEvent<{ section?: string }>).detail?.section;
      showView('settings', section === 'models' ? 'defaults' : section === 'general' ? 'folder' : 'keys');
    };
    const onMenu = (command: MenuCommand) => {
      if (command === 'settings') showView('settings');
      else if (command === 'new-chat') void newChat();
      else if (command === 'open-folder') void setWorkspace({ dialog: true });
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('agentdesk:open-settings', onOpenSettings);
    const offMenu = window.agentdesk?.onMenu?.(onMenu);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('agentdesk:open-settings', onOpenSettings);
      offMenu?.();
    };
  }, []);
}

/**
 * A link whose token this server refuses, before anything was shown: one message, not an empty app with errors
 * stacked on it (a tab that WAS connected keeps its app and its draft; the composer says the link went stale).
 */
function LinkProblem() {
  return (
    <div className="fatal" role="alert" data-testid="link-problem">
      <h1>This link does not open AgentDesk</h1>
      <p>
        The server at <code>{window.location.host}</code> is running but does not accept this link's access token: it was started again since
        the link was printed, or the link was copied incompletely.
      </p>
      <p>
        Open the link that <code>npm run web</code> printed last in its terminal. To keep one link across restarts, start it with{' '}
        <code>AGENTDESK_WEB_TOKEN</code> set to 64 hex digits.
      </p>
    </div>
  );
}

export function App() {
  const badLink = useChat((s) => s.connection === 'unauthorized' && !s.everOpened);
  if (badLink) return <LinkProblem />;
  return <Frame />;
}

function Frame() {
  useFrameCommands();
  const view = useSessions((s) => s.view);
  const narrow = useNarrow();
  const shown = useSessions((s) => (narrow ? s.drawer : s.sidebar === 'open'));
  return (
    <div className="app" data-narrow={narrow ? 'true' : 'false'} data-sidebar={shown ? 'open' : 'closed'}>
      <TopBar />
      <div className="frame">
        {shown && <Sidebar />}
        {shown && narrow && <button type="button" className="drawer-backdrop" aria-label="Close the chat list" onClick={closeDrawer} />}
        <div className="main-column">
          {view === 'settings' ? (
            <Settings />
          ) : (
            <>
              <EarlierBar />
              <Onboarding />
              <Chat />
            </>
          )}
        </div>
      </div>
      <Toasts />
    </div>
  );
}
