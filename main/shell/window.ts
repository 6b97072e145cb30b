/**
 * The locked-down main window (D1): context isolation, sandbox, no Node in the page, strict CSP, no remote content,
 * no navigation away from the app's page, no new windows (http(s) links go to the OS browser), every permission
 * denied but the clipboard write the Copy buttons need, the spellchecker only where it is local (macOS).
 */
import { BrowserWindow, session, shell, type Session, type WebPreferences } from 'electron';
import { contentSecurityPolicy } from './csp.js';
import { PRELOAD_PATH, RENDERER_INDEX, devRendererUrl, isAppUrl } from './paths.js';
import { permissionAllowed } from './permissions.js';
import { spellcheckEnabled } from './platform.js';

/** The window's web preferences: the page gets exactly what preload exposes (window.agentdesk), nothing else. */
export function windowWebPreferences(platform: NodeJS.Platform = process.platform): WebPreferences {
  return {
    preload: PRELOAD_PATH,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: spellcheckEnabled(platform),
  };
}

/** Session-wide guards; call once before the first window. */
export function hardenSession(ses: Session = session.defaultSession, platform: NodeJS.Platform = process.platform): void {
  // Header-delivered CSP for every response, file:// included (Electron's webRequest covers file: loads); the built
  // page carries the same policy in a <meta> too (electron.vite.config.ts), the one form documented for file:.
  const csp = contentSecurityPolicy({ devServer: devRendererUrl() !== undefined });
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  const ours = (url: string) => isAppUrl(url);
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(permissionAllowed(permission, details, ours)));
  ses.setPermissionCheckHandler((wc, permission, _origin, details) => wc !== null && permissionAllowed(permission, details, ours));
  ses.setDevicePermissionHandler(() => false);
  // Off on Windows and Linux: Chromium's Hunspell dictionaries would be downloaded from Google's CDN.
  ses.setSpellCheckerEnabled(spellcheckEnabled(platform));
}

function openExternalIfWeb(url: string): void {
  try {
    const { protocol } = new URL(url);
    if (protocol === 'https:' || protocol === 'http:') void shell.openExternal(url); // the chat's links (http(s) only)
  } catch {
    // not a URL: ignore
  }
}

export function createMainWindow(platform: NodeJS.Platform = process.platform): BrowserWindow {
  const win = new BrowserWindow({
    width: 1120,
    height: 780,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'AgentDesk',
    backgroundColor: '#f6f5f2',
    webPreferences: windowWebPreferences(platform),
  });
  const contents = win.webContents;
  contents.on('will-navigate', (event) => {
    // The app's own page may load again: a reload, and in `npm run dev` Vite reloading the page after an edit.
    if (isAppUrl(event.url)) return;
    event.preventDefault();
    openExternalIfWeb(event.url);
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
