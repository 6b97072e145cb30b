/**
 * Electron entry (out/main/index.js): app lifecycle only. The gateway is plain Node; this wires it to one window,
 * with settings in electron-store (the same settings.json, schema and migrations the CLI reads through conf), the
 * native folder dialog and the encrypted key fallback. Changing the folder never rebuilds the gateway: running work
 * continues and new runs use the new folder. Quitting waits for the gateway to close (lifecycle.ts).
 * AGENTDESK_HOME / AGENTDESK_WORKSPACE override the data folder and the workspace (used by the e2e tests).
 */
import { app, dialog, shell, type BrowserWindow } from 'electron';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IPC_MENU, type MenuCommand } from '../../preload/contract.js';
import { createAppGateway, type AppGateway } from '../gateway/create.js';
import { bindIpc, forwardEvents } from './ipc.js';
import { installLifecycle } from './lifecycle.js';
import { installMenu } from './menu.js';
import { devRendererUrl } from './paths.js';
import { appUserModelId } from './platform.js';
import { openSafeStorageSecrets, safeStorageSupported } from './safe-storage.js';
import { openAppSettings } from './settings.js';
import { createMainWindow, hardenSession, loadApp } from './window.js';
import { pickFolder } from './workspace.js';
import { setCheckpointWorkerScript } from '../checkpoints/prefetch.js';

// X2: the checkpoint worker is its own bundle entry, beside this one (out/main/checkpoint-worker.js).
setCheckpointWorkerScript(new URL('./checkpoint-worker.js', import.meta.url));

if (process.env.AGENTDESK_HOME) {
  // app.setPath throws for a folder that does not exist yet (Electron docs): create it first.
  const home = resolve(process.env.AGENTDESK_HOME);
  mkdirSync(home, { recursive: true });
  app.setPath('userData', home);
}

let win: BrowserWindow | undefined;
let gateway: AppGateway | undefined;
let stopForwarding: (() => void) | undefined;
let started: Promise<void> = Promise.resolve();

const isDirectory = (path: string | undefined): path is string => {
  try {
    return path !== undefined && statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** AGENTDESK_WORKSPACE, else the folder chosen in Settings, else ~/AgentDesk (created; the onboarding offers a pick). */
function startupWorkspace(chosen: string | undefined): string {
  if (isDirectory(process.env.AGENTDESK_WORKSPACE)) return process.env.AGENTDESK_WORKSPACE;
  if (isDirectory(chosen)) return chosen;
  const fallback = join(app.getPath('home'), 'AgentDesk');
  if (!existsSync(fallback)) mkdirSync(fallback, { recursive: true });
  return fallback;
}

function sendMenu(command: MenuCommand): void {
  if (win && !win.isDestroyed()) win.webContents.send(IPC_MENU, command);
}

/** Opens the main window on the app's page (at start, and on macOS when the dock icon is clicked with none open). */
async function openWindow(): Promise<void> {
  const opened = createMainWindow();
  win = opened;
  opened.on('closed', () => {
    if (win === opened) win = undefined;
  });
  await loadApp(opened);
}

async function start(): Promise<void> {
  hardenSession();
  const userData = app.getPath('userData');
  const settings = openAppSettings(userData);
  const workspace = startupWorkspace(settings.get().workspace);
  gateway = await createAppGateway({
    home: userData,
    workspace,
    env: process.env,
    settings,
    version: app.getVersion(),
    pickFolder: () => pickFolder(win),
    // X1 OAuth: an MCP server's consent page opens in the system browser (http(s) only).
    openUrl: (url) => {
      if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    },
    ...(safeStorageSupported() ? { openFallbackSecrets: async () => openSafeStorageSecrets(userData) } : {}),
  });
  stopForwarding = forwardEvents(gateway, () => win);
  bindIpc(() => gateway, () => win);
  installMenu(sendMenu, devRendererUrl() !== undefined);
  await openWindow();
}

function reportError(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  console.error('AgentDesk:', message);
  dialog.showErrorBox('AgentDesk', message);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  const modelId = appUserModelId(process.platform, app.isPackaged, process.execPath);
  if (modelId !== undefined) app.setAppUserModelId(modelId);
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    } else if (gateway) {
      openWindow().catch(reportError);
    }
  });
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  installLifecycle({
    app,
    platform: process.platform,
    hasWindow: () => win !== undefined,
    openWindow: () => {
      if (gateway) openWindow().catch(reportError);
    },
    close: async () => {
      await started.catch(() => undefined); // a quit during start-up closes what start-up opened
      await gateway?.close();
      stopForwarding?.();
    },
  });
  started = app.whenReady().then(start);
  started.catch((err: unknown) => {
    reportError(err);
    app.exit(1);
  });
}
