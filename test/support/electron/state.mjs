/**
 * Shared state of the `electron` stub (see electron.mjs): what the code under test did, and how the stub answers.
 * One object per process; `resetState` gives a test a clean one.
 */
export const state = fresh();

function fresh() {
  return {
    /** Where the app's package.json is looked up (Electron: the app folder / the main script's folder). */
    appPath: undefined,
    ready: false,
    quitting: false,
    shutdown: false,
    singleInstanceLock: true,
    /** Open windows, in creation order (BrowserWindow.getAllWindows). */
    windows: [],
    nextWindowId: 1,
    nextWebContentsId: 1,
    /** ipcMain.handle registrations: channel → listener. */
    handlers: new Map(),
    /** Every webContents.send: { webContentsId, channel, args } (args structured-cloned, as Electron serialises them). */
    sent: [],
    /** shell.openExternal / shell.openPath calls. */
    openedExternal: [],
    openedPaths: [],
    /** dialog.showErrorBox calls: { title, content }. */
    errorBoxes: [],
    /** dialog.showOpenDialog calls (options) and the answers queued for them ({ canceled, filePaths }). */
    openDialogs: [],
    openDialogAnswers: [],
    /** Menu.setApplicationMenu's menu. */
    applicationMenu: undefined,
    /** Preload scripts Electron would fail to load ("Unable to load preload script"). */
    preloadErrors: [],
    /** safeStorage: whether the OS offers encryption, and the Linux backend it reports. */
    encryptionAvailable: true,
    storageBackend: 'gnome_libsecret',
    clipboardText: '',
    /** app.setAppUserModelId (Windows only). */
    appUserModelId: undefined,
    /** What 'quit' does once every listener ran: exit the process (a test running in-process replaces it). */
    onShutdown: (code) => process.exit(code),
    /** The order of lifecycle events the app emitted, for assertions: 'ready', 'before-quit', 'will-quit', … */
    lifecycle: [],
  };
}

export function resetState(overrides = {}) {
  const next = fresh();
  for (const key of Object.keys(state)) delete state[key];
  Object.assign(state, next, overrides);
  return state;
}
