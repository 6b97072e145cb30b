/** Chooses the transport: the preload's `window.agentdesk` inside Electron, else the loopback WebSocket. */
import type { AgentDeskApi } from '../../../preload/contract.js';
import type { RendererTransport } from './types.js';
import { createWsTransport, wsUrlFromLocation } from './ws-client.js';

declare global {
  interface Window {
    agentdesk?: AgentDeskApi;
  }
}

export function pickTransport(): RendererTransport | { error: string } {
  const bridged = window.agentdesk;
  if (bridged) {
    return { kind: 'electron', api: bridged, onStatus: (l) => (l('open'), () => undefined) };
  }
  const url = wsUrlFromLocation(window.location);
  if (!url) return { error: 'This page needs the full link printed by `npm run web` (it carries an access token).' };
  return createWsTransport(url);
}
