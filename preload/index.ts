/**
 * Sandboxed preload: exposes exactly one typed object, `window.agentdesk` (AgentDeskApi), to the renderer.
 * ipcRenderer itself is never exposed; listeners receive only the event payload, never the IPC event object.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  IPC_EVENT,
  IPC_MENU,
  IPC_REQUEST,
  type AgentDeskApi,
  type AgentEvent,
  type IpcEnvelope,
  type MenuCommand,
  type MethodName,
  type Methods,
} from './contract.js';
import { RequestError } from './messages/requests.js';

const listeners = new Set<(event: AgentEvent) => void>();

ipcRenderer.on(IPC_EVENT, (_ipcEvent: IpcRendererEvent, event: AgentEvent) => {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (err) {
      console.error('agentdesk event listener failed', err);
    }
  }
});

const menuListeners = new Set<(command: MenuCommand) => void>();
ipcRenderer.on(IPC_MENU, (_ipcEvent: IpcRendererEvent, command: MenuCommand) => {
  for (const listener of menuListeners) listener(command);
});

const api: AgentDeskApi = {
  request<M extends MethodName>(method: M, params: Methods[M][0]): Promise<Methods[M][1]> {
    // Main answers with an envelope so the gateway's message survives (a thrown error would be rewrapped by Electron).
    return (ipcRenderer.invoke(IPC_REQUEST, method, params) as Promise<IpcEnvelope>).then((reply) => {
      if (reply.ok) return reply.result as Methods[M][1];
      throw new RequestError(reply.error.code, reply.error.message);
    });
  },
  onEvent(listener: (event: AgentEvent) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
  onMenu(listener: (command: MenuCommand) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    menuListeners.add(listener);
    return () => {
      menuListeners.delete(listener);
    };
  },
};

contextBridge.exposeInMainWorld('agentdesk', api);
