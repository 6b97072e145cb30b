/**
 * Binds the gateway to Electron IPC (D2): one request channel with a sender check, one event channel.
 * The gateway validates params; this layer only checks who is asking and that `method` is a string.
 */
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { IPC_EVENT, IPC_REQUEST, type IpcEnvelope, type MethodName } from '../../preload/contract.js';
import { GatewayError, type GatewayApi } from '../gateway/types.js';
import { isAppUrl } from './paths.js';

/** Only the top frame of our main window, showing our own page, may call the gateway. */
export function isTrustedSender(event: IpcMainInvokeEvent, win: BrowserWindow | undefined): boolean {
  if (win === undefined || win.isDestroyed() || event.sender !== win.webContents) return false;
  const frame = event.senderFrame;
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
}

function failure(code: string, message: string): IpcEnvelope {
  return { ok: false, error: { code, message } };
}

/**
 * Registers the request handler. `getGateway`/`getWindow` are read per call so the gateway can be swapped
 * (Open Folder…) without re-registering. Returns a disposer.
 */
export function bindIpc(getGateway: () => GatewayApi | undefined, getWindow: () => BrowserWindow | undefined): () => void {
  ipcMain.handle(IPC_REQUEST, async (event, method: unknown, params: unknown): Promise<IpcEnvelope> => {
    if (!isTrustedSender(event, getWindow())) return failure('forbidden', 'sender not allowed');
    if (typeof method !== 'string') return failure('bad_request', 'method must be a string');
    const gateway = getGateway();
    if (gateway === undefined) return failure('internal', 'gateway not ready');
    try {
      return { ok: true, result: await gateway.request(method as MethodName, params ?? {}) };
    } catch (err) {
      if (err instanceof GatewayError) return failure(err.code, err.message);
      return failure('internal', err instanceof Error ? err.message : String(err));
    }
  });
  return () => ipcMain.removeHandler(IPC_REQUEST);
}

/** Forwards every gateway event to the window; returns the unsubscribe function. */
export function forwardEvents(gateway: GatewayApi, getWindow: () => BrowserWindow | undefined): () => void {
  return gateway.onEvent((event) => {
    const win = getWindow();
    if (win !== undefined && !win.isDestroyed()) win.webContents.send(IPC_EVENT, event);
  });
}
