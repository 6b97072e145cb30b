import type { AgentDeskApi } from '../../../preload/contract.js';

/** `unauthorized`: the server is up but refuses this page's token (it was restarted with a new one). */
export type ConnectionStatus = 'connecting' | 'open' | 'closed' | 'unauthorized';

/** What the UI talks to: the contract API plus a connection status (always "open" for Electron IPC). */
export interface RendererTransport {
  kind: 'electron' | 'web';
  api: AgentDeskApi;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}
