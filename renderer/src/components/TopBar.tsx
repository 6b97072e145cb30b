import { useChat } from '../store/chat-store.js';
import { showView } from '../store/sessions-store.js';
import { folderName } from './frame/format.js';
import { ContextMeter } from './ContextMeter.js';
import { ModelPicker, ProfileCooldowns, ThinkingPicker } from './ModelPicker.js';

const CONNECTION_TEXT = { connecting: 'Connecting…', open: 'Connected', closed: 'Reconnecting…', unauthorized: 'Link expired' } as const;

export function TopBar() {
  const info = useChat((s) => s.appInfo);
  const connection = useChat((s) => s.connection);
  const kind = useChat((s) => s.transportKind);
  return (
    <header className="topbar">
      <div className="brand">
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
        <button type="button" className="icon-btn topbar-settings" aria-label="Settings" title="Settings (Ctrl/Cmd+,)" onClick={() => showView('settings')}>
          ⚙
        </button>
        {kind === 'web' && (
          <span className={`conn conn-${connection}`} role="status" aria-label={`Connection: ${CONNECTION_TEXT[connection]}`}>
            {CONNECTION_TEXT[connection]}
          </span>
        )}
      </div>
    </header>
  );
}
