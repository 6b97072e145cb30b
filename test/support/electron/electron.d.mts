/**
 * Types of the electron stub (electron.mjs): the Electron API it implements is typed by Electron's own
 * electron.d.ts; `__stub` is the test-only control surface.
 */
import type * as Electron from 'electron';

export interface StubState {
  appPath: string | undefined;
  ready: boolean;
  quitting: boolean;
  shutdown: boolean;
  singleInstanceLock: boolean;
  windows: Electron.BrowserWindow[];
  handlers: Map<string, (event: Electron.IpcMainInvokeEvent, ...args: unknown[]) => unknown>;
  sent: { webContentsId: number; channel: string; args: unknown[] }[];
  openedExternal: string[];
  openedPaths: string[];
  errorBoxes: { title: string; content: string }[];
  openDialogs: Electron.OpenDialogOptions[];
  openDialogAnswers: { canceled: boolean; filePaths: string[] }[];
  applicationMenu: (Electron.Menu & { items: (Electron.MenuItem & { submenu?: Electron.Menu & { items: Electron.MenuItem[] } })[] }) | undefined;
  preloadErrors: string[];
  encryptionAvailable: boolean;
  storageBackend: string;
  clipboardText: string;
  appUserModelId: string | undefined;
  onShutdown: (exitCode: number) => void;
  lifecycle: string[];
}

export interface StubSession extends Electron.Session {
  spellCheckerEnabled: boolean;
}

export declare const __stub: {
  state: StubState;
  ready(): void;
  reset(overrides?: Partial<StubState> & { platform?: NodeJS.Platform }): void;
  bindPlatformMethods(platform: NodeJS.Platform): void;
  invoke(webContents: Electron.WebContents, channel: string, args?: unknown[], frame?: Electron.WebFrameMain): Promise<unknown>;
  navigate(webContents: Electron.WebContents, url: string, initiator?: Electron.WebFrameMain | null): boolean;
  windowOpen(webContents: Electron.WebContents, url: string, frameName?: string, features?: string): { action: 'allow' | 'deny' };
  addSubframe(webContents: Electron.WebContents, url: string, parent?: Electron.WebFrameMain): Electron.WebFrameMain;
  requestPermission(webContents: Electron.WebContents, permission: string, details: { isMainFrame: boolean; requestingUrl: string }): Promise<boolean>;
  checkPermission(
    webContents: Electron.WebContents | null,
    permission: string,
    requestingOrigin: string,
    details: { isMainFrame: boolean; requestingUrl?: string; embeddingOrigin?: string },
  ): boolean;
  receiveHeaders(
    session: Electron.Session,
    details: { url: string; responseHeaders?: Record<string, string[]> },
  ): Promise<Record<string, string[]> | null>;
  closeWindow(win: Electron.BrowserWindow): void;
  activate(): void;
  secondInstance(argv?: string[], cwd?: string): void;
  ElectronEvent: new (fields?: object) => Electron.Event;
};

export declare const app: Electron.App;
export declare const BrowserWindow: typeof Electron.BrowserWindow;
export declare const clipboard: Electron.Clipboard;
export declare const dialog: Electron.Dialog;
export declare const ipcMain: Electron.IpcMain;
export declare const Menu: typeof Electron.Menu;
export declare const MenuItem: typeof Electron.MenuItem;
export declare const nativeTheme: Electron.NativeTheme;
export declare const safeStorage: Electron.SafeStorage;
export declare const session: typeof Electron.session;
export declare const shell: Electron.Shell;

export type ElectronStub = {
  __stub: typeof __stub;
  app: typeof app;
  BrowserWindow: typeof BrowserWindow;
  clipboard: typeof clipboard;
  dialog: typeof dialog;
  ipcMain: typeof ipcMain;
  Menu: typeof Menu;
  safeStorage: typeof safeStorage;
  session: typeof session;
  shell: typeof shell;
};

declare const electron: Omit<ElectronStub, '__stub'>;
export default electron;
