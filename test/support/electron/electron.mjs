/**
 * A stub of the `electron` module for running main/shell under plain Node (no Electron binary here), faithful to
 * Electron 41's documented API for the parts the shell and electron-store use: app (paths, single-instance lock,
 * ready, the quit sequence), BrowserWindow/webContents/main frame, ipcMain, session (permission handlers,
 * webRequest, spellchecker), shell, dialog, safeStorage, Menu, clipboard. It is what a Node resolution hook
 * (register.mjs) or a vitest mock maps `electron` to — only in the shell's tests.
 *
 * `__stub` is not Electron API: it lets a test read what the app did and play the parts of the renderer, Chromium
 * and the user (a request over IPC, a navigation, a permission prompt, closing the window, the dock icon).
 */
import { app, bindPlatformMethods, ElectronEvent } from './app.mjs';
import { clipboard, dialog, Menu, MenuItem, nativeTheme, safeStorage, shell } from './misc.mjs';
import { checkPermission, receiveHeaders, requestPermission, resetSessions, session, Session } from './session.mjs';
import { resetState, state } from './state.mjs';
import { addSubframe, BrowserWindow, invoke, ipcMain, navigate, WebContents, WebFrameMain, windowOpen } from './windows.mjs';

// In Electron's main process process.type is 'browser' (electron-store reads it).
process.type = 'browser';

export const __stub = {
  state,
  /** The app is ready (Electron: after the main script ran). */
  ready: () => app._emitReady(),
  /** A clean stub for the next in-process test: state, listeners, handlers, windows, sessions. */
  reset(overrides = {}) {
    resetState(overrides);
    resetSessions();
    app.removeAllListeners();
    ipcMain.removeAllListeners();
    bindPlatformMethods(overrides.platform ?? process.platform);
  },
  /** Simulates another OS's platform-bound app methods (the shell itself is told its platform separately). */
  bindPlatformMethods,
  invoke,
  navigate,
  windowOpen,
  addSubframe,
  requestPermission,
  checkPermission,
  receiveHeaders,
  /** The user closes `win` (its close button / Ctrl+W). */
  closeWindow: (win) => win.close(),
  /** macOS: the dock icon is clicked (or the app is relaunched while running). */
  activate: () => app.emit('activate', new ElectronEvent(), BrowserWindow.getAllWindows().some((w) => w.isVisible())),
  /** A second instance was started: the first gets 'second-instance'. */
  secondInstance: (argv = [], cwd = process.cwd()) => app.emit('second-instance', new ElectronEvent(), argv, cwd, {}),
  ElectronEvent,
};

export { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, MenuItem, nativeTheme, safeStorage, session, Session, shell, WebContents, WebFrameMain };

export default { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, MenuItem, nativeTheme, safeStorage, session, shell };
