import type { AgentDeskApi } from '../../../preload/contract.js';

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

/** What the UI talks to: the contract API plus a connection status (always "open" for Electron IPC). */
export interface RendererTransport {
  kind: 'electron' | 'web';
  api: AgentDeskApi;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}
