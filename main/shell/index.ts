/**
 * Electron entry (out/main/index.js): app lifecycle only. The gateway is plain Node; this wires it to one window.
 * AGENTDESK_HOME / AGENTDESK_WORKSPACE override the data folder and the workspace (used by the e2e tests).
 */
import { app, dialog, type BrowserWindow } from 'electron';
import { resolve } from 'node:path';
import { createAppGateway, type AppGateway } from '../gateway/create.js';
import { bindIpc, forwardEvents } from './ipc.js';
import { installMenu } from './menu.js';
import { devRendererUrl } from './paths.js';
import { createMainWindow, hardenSession, loadApp } from './window.js';
import { pickFolder, resolveStartupWorkspace, saveLastWorkspace } from './workspace.js';

if (process.env.AGENTDESK_HOME) app.setPath('userData', resolve(process.env.AGENTDESK_HOME));

let win: BrowserWindow | undefined;
let gateway: AppGateway | undefined;
let stopForwarding: (() => void) | undefined;

async function useWorkspace(workspace: string): Promise<void> {
  const previous = gateway;
  stopForwarding?.();
  gateway = undefined;
  await previous?.close();
  gateway = await createAppGateway({ home: app.getPath('userData'), workspace, env: process.env });
  stopForwarding = forwardEvents(gateway, () => win);
}

async function openFolder(): Promise<void> {
  const folder = await pickFolder(win);
  if (folder === undefined) return;
  saveLastWorkspace(app.getPath('userData'), folder);
  await useWorkspace(folder);
  if (win && !win.isDestroyed()) win.webContents.reload();
}

async function start(): Promise<void> {
  hardenSession();
  const workspace = await resolveStartupWorkspace(app.getPath('userData'), process.env);
  if (workspace === undefined) {
    app.quit(); // no folder chosen at first start: nothing to work in
    return;
  }
  await useWorkspace(workspace);
  bindIpc(() => gateway, () => win);
  installMenu({ openFolder: () => void openFolder().catch(reportError) }, devRendererUrl() !== undefined);
  win = createMainWindow();
  win.on('closed', () => (win = undefined));
  await loadApp(win);
}

function reportError(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  console.error('AgentDesk:', message);
  dialog.showErrorBox('AgentDesk', message);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    stopForwarding?.();
    void gateway?.close();
  });
  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      reportError(err);
      app.exit(1);
    });
}
