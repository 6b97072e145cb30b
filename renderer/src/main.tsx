import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { startChat } from './store/chat-store.js';
import { startApprovals } from './approvals/approval-store.js';
import { pickTransport } from './transport/pick.js';
import { preloadHighlighter } from './lib/highlight.js';
import './styles.css';

const root = createRoot(document.getElementById('root')!);
const transport = pickTransport();
if ('error' in transport) {
  root.render(
    <div className="fatal" role="alert">
      {transport.error}
    </div>,
  );
} else {
  startApprovals(transport.api);
  void startChat(transport);
  preloadHighlighter();
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
