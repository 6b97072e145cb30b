/** D2 contract: what preload exposes as `window.agentdesk`, and the Electron IPC channels behind it. */
import type { AgentEvent } from './events.js';
import type { MethodName, Methods } from './methods.js';

/** Commands of the desktop app's menu, forwarded to the window (the web UI has keyboard shortcuts instead). */
export type MenuCommand = 'new-chat' | 'settings' | 'open-folder';

/** What preload exposes as `window.agentdesk`. */
export interface AgentDeskApi {
  request<M extends MethodName>(method: M, params: Methods[M][0]): Promise<Methods[M][1]>;
  /** Subscribe to all run events; returns an unsubscribe function. */
  onEvent(listener: (event: AgentEvent) => void): () => void;
  /** Desktop app only: menu commands (File › New Chat, Settings…, Open Folder…). */
  onMenu?(listener: (command: MenuCommand) => void): () => void;
}

/** IPC channel names (Electron). */
export const IPC_REQUEST = 'agentdesk:request';
export const IPC_EVENT = 'agentdesk:event';
export const IPC_MENU = 'agentdesk:menu';

/** What main returns for IPC_REQUEST (preload turns `ok: false` into a rejected promise). */
export type IpcEnvelope = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };
