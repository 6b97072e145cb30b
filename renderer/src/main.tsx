import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { setSessionReady, startChat, trackNavigation } from './store/chat-store.js';
import { startApprovals } from './approvals/approval-store.js';
import { startCheckpoints } from './checkpoints/checkpoint-store.js';
import { startSessions } from './store/sessions-store.js';
import { connectSettings } from './store/settings-store.js';
import { connectMcp } from './mcp/mcp-store.js';
import { connectAttachments } from './attachments/attach-store.js';
import { startUsage } from './usage/usage-store.js';
import { pickTransport } from './transport/pick.js';
import { preloadHighlighter } from './lib/highlight.js';
import { initTheme } from './lib/theme.js';
import './styles.css';

initTheme();

const root = createRoot(document.getElementById('root')!);
const transport = pickTransport();
if ('error' in transport) {
  root.render(
    <div className="fatal" role="alert">
      {transport.error}
    </div>,
  );
} else {
  startApprovals(transport.api, transport.onStatus);
  startCheckpoints(transport.api);
  connectSettings(transport.api);
  connectMcp(transport.api);
  connectAttachments(transport.api);
  startUsage(transport.api);
  // Start-up chooses the chat to show: a model picked meanwhile is for that chat (like any switch of chats).
  setSessionReady(trackNavigation(startChat(transport).then(() => startSessions(transport))));
  preloadHighlighter();
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
