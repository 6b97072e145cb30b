/**
 * The locked-down main window (D1): context isolation, sandbox, no Node in the page, strict CSP, no remote content,
 * no navigation, no new windows (https links go to the OS browser), every permission denied.
 */
import { BrowserWindow, session, shell, type Session } from 'electron';
import { contentSecurityPolicy } from './csp.js';
import { PRELOAD_PATH, RENDERER_INDEX, devRendererUrl, isAppUrl } from './paths.js';

/** Session-wide guards; call once before the first window. */
export function hardenSession(ses: Session = session.defaultSession): void {
  // Header-delivered CSP for every response, file:// included (Electron's webRequest covers file: loads).
  const csp = contentSecurityPolicy({ devServer: devRendererUrl() !== undefined });
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
}

function openExternalIfWeb(url: string): void {
  try {
    const { protocol } = new URL(url);
    if (protocol === 'https:' || protocol === 'http:') void shell.openExternal(url); // the chat's links (http(s) only)
  } catch {
    // not a URL: ignore
  }
}

export function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1120,
    height: 780,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'AgentDesk',
    backgroundColor: '#f6f5f2',
    webPreferences: {
      preload: PRELOAD_PATH,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: true,
    },
  });
  const contents = win.webContents;
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    openExternalIfWeb(url);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternalIfWeb(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  return win;
}

export async function loadApp(win: BrowserWindow): Promise<void> {
  const devUrl = devRendererUrl();
  if (devUrl !== undefined) await win.loadURL(devUrl);
  else await win.loadFile(RENDERER_INDEX);
  if (!isAppUrl(win.webContents.getURL())) throw new Error(`unexpected page URL ${win.webContents.getURL()}`);
}
