import { useChat } from '../store/chat-store.js';
import { useNarrow } from '../lib/media.js';
import { showView, toggleSidebar, useSessions } from '../store/sessions-store.js';
import { folderName } from './frame/format.js';
import { ContextMeter } from './ContextMeter.js';
import { ChatCost } from '../usage/ChatCost.js';
import '../usage/usage.css';
import { ModelPicker, ProfileCooldowns, ThinkingPicker } from './ModelPicker.js';

const CONNECTION_TEXT = { connecting: 'Connecting…', open: 'Connected', closed: 'Reconnecting…', unauthorized: 'Link expired' } as const;

export function TopBar() {
  const info = useChat((s) => s.appInfo);
  const connection = useChat((s) => s.connection);
  const kind = useChat((s) => s.transportKind);
  const narrow = useNarrow();
  const open = useSessions((s) => (narrow ? s.drawer : s.sidebar === 'open'));
  const sessionKey = useChat((s) => s.sessionKey);
  return (
    <header className="topbar">
      <div className="brand">
        <button
          type="button"
          className="icon-btn sidebar-toggle"
          aria-label={open ? 'Hide chats' : 'Show chats'}
          aria-expanded={open}
          title={`${open ? 'Hide' : 'Show'} the chat list (Ctrl/Cmd+B)`}
          onClick={() => toggleSidebar(narrow)}
        >
          ☰
        </button>
        <span className="brand-mark" aria-hidden="true">◆</span>
        <span className="brand-name">AgentDesk</span>
        {info && (
          <button type="button" className="topbar-folder" title={`${info.workspace} — change the folder`} onClick={() => showView('settings', 'folder')}>
            <bdi>{folderName(info.workspace)}</bdi>
          </button>
        )}
      </div>
      <div className="topbar-controls">
        <ModelPicker />
        <ThinkingPicker />
        <ProfileCooldowns />
        <ContextMeter />
        {sessionKey && <ChatCost sessionKey={sessionKey} className="chat-cost-header" />}
        <button type="button" className="icon-btn topbar-settings" aria-label="Settings" title="Settings (Ctrl/Cmd+,)" onClick={() => showView('settings')}>
          ⚙
        </button>
        {kind === 'web' && (
          <span className={`conn conn-${connection}`} role="status" aria-label={`Connection: ${CONNECTION_TEXT[connection]}`} title={CONNECTION_TEXT[connection]}>
            <span className="conn-text">{CONNECTION_TEXT[connection]}</span>
          </span>
        )}
      </div>
    </header>
  );
}
