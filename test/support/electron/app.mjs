/**
 * The `app` of the electron stub, after Electron 41's documented API (docs/api/app.md) and its lifecycle
 * (shell/browser/browser.cc): `quit()` emits 'before-quit' (preventable; a prevented quit can be retried), then
 * closes every window ('close' is preventable and cancels the quit), then 'will-quit' (preventable), then 'quit'
 * and the process ends. `exit(code)` skips 'before-quit' and 'will-quit'. With no 'window-all-closed' listener
 * of its own, closing the last window quits (lib/browser/init.ts). Platform-only methods exist only on their
 * platform, as in Electron (`setAppUserModelId` on Windows).
 */
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { state } from './state.mjs';
import { closeAllWindows, destroyAllWindows } from './windows.mjs';

/** Electron's `Event`: `preventDefault()` and `defaultPrevented`, plus the event's own fields. */
export class ElectronEvent {
  constructor(fields = {}) {
    Object.assign(this, fields);
    this.defaultPrevented = false;
  }
  preventDefault() {
    this.defaultPrevented = true;
  }
}

/** The app's package.json, looked up from the app folder upwards (Electron reads name, productName, version). */
function appPackage() {
  let dir = resolve(state.appPath ?? (process.argv[1] ? dirname(process.argv[1]) : process.cwd()));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
    const up = dirname(dir);
    if (up === dir) return {};
    dir = up;
  }
}

const PATH_NAMES = ['home', 'appData', 'assets', 'userData', 'sessionData', 'temp', 'exe', 'module', 'desktop', 'documents', 'downloads', 'music', 'pictures', 'videos', 'recent', 'logs', 'crashDumps'];

function defaultPath(name, appName) {
  const home = homedir();
  const appData =
    process.platform === 'darwin'
      ? join(home, 'Library', 'Application Support')
      : process.platform === 'win32'
        ? (process.env.APPDATA ?? join(home, 'AppData', 'Roaming'))
        : (process.env.XDG_CONFIG_HOME ?? join(home, '.config'));
  switch (name) {
    case 'home':
      return home;
    case 'appData':
      return appData;
    case 'userData':
      return join(appData, appName);
    case 'temp':
      return tmpdir();
    case 'exe':
    case 'module':
      return process.execPath;
    case 'assets':
      return dirname(process.execPath);
    case 'desktop':
      return join(home, 'Desktop');
    case 'documents':
      return join(home, 'Documents');
    case 'downloads':
      return join(home, 'Downloads');
    case 'music':
      return join(home, 'Music');
    case 'pictures':
      return join(home, 'Pictures');
    case 'videos':
      return join(home, 'Videos');
    case 'recent':
      return join(appData, 'Microsoft', 'Windows', 'Recent');
    default:
      return undefined; // derived below
  }
}

class App extends EventEmitter {
  #overrides = new Map();
  #name;
  #readyWaiters = [];

  get name() {
    if (this.#name === undefined) {
      const pkg = appPackage();
      this.#name = pkg.productName ?? pkg.name ?? 'Electron';
    }
    return this.#name;
  }
  set name(value) {
    this.#name = value;
  }
  getName() {
    return this.name;
  }
  setName(value) {
    this.#name = value;
  }
  getVersion() {
    return appPackage().version ?? process.versions.electron ?? '0.0.0';
  }
  /** Not packaged: the stub runs from the source tree, as `electron .` does. */
  get isPackaged() {
    return false;
  }
  getAppPath() {
    return resolve(state.appPath ?? (process.argv[1] ? dirname(process.argv[1]) : process.cwd()));
  }

  getPath(name) {
    if (this.#overrides.has(name)) return this.#overrides.get(name);
    if (!PATH_NAMES.includes(name)) throw new Error(`Failed to get '${name}' path`);
    const direct = defaultPath(name, this.name);
    if (direct !== undefined) return direct;
    const userData = this.getPath('userData');
    if (name === 'sessionData') return userData;
    if (name === 'logs') return process.platform === 'darwin' ? join(homedir(), 'Library', 'Logs', this.name) : join(userData, 'logs');
    if (name === 'crashDumps') return join(userData, 'Crashpad');
    throw new Error(`Failed to get '${name}' path`);
  }

  /** docs: "If the path specifies a directory that does not exist, an Error is thrown." Only getPath's names. */
  setPath(name, path) {
    if (!isAbsolute(path)) throw new Error('Path must be absolute');
    if (!PATH_NAMES.includes(name)) throw new Error('Failed to set path');
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new Error('Failed to set path');
    this.#overrides.set(name, path);
  }

  isReady() {
    return state.ready;
  }
  whenReady() {
    if (state.ready) return Promise.resolve();
    return new Promise((resolveReady) => this.#readyWaiters.push(resolveReady));
  }
  /** Driven by the stub's runner once the main script has been evaluated (Electron: after the app's entry ran). */
  _emitReady() {
    if (state.ready) return;
    state.ready = true;
    state.lifecycle.push('ready');
    this.emit('will-finish-launching');
    this.emit('ready', new ElectronEvent(), {});
    for (const waiter of this.#readyWaiters.splice(0)) waiter();
  }

  requestSingleInstanceLock() {
    return state.singleInstanceLock;
  }
  hasSingleInstanceLock() {
    return state.singleInstanceLock;
  }
  releaseSingleInstanceLock() {}

  quit() {
    if (state.quitting || state.shutdown) return;
    const event = new ElectronEvent();
    state.lifecycle.push('before-quit');
    this.emit('before-quit', event);
    if (event.defaultPrevented) return;
    state.quitting = true;
    if (state.windows.length === 0) this._notifyAndShutdown();
    else closeAllWindows(); // the last 'closed' calls _allWindowsClosed
  }

  exit(exitCode = 0) {
    destroyAllWindows();
    this._shutdown(exitCode);
  }

  /** A window close was prevented ('close' listener or beforeunload): the quit is cancelled. */
  _closeCancelled() {
    state.quitting = false;
  }

  /** The window list became empty. */
  _allWindowsClosed() {
    if (state.shutdown) return;
    if (state.quitting) return this._notifyAndShutdown();
    state.lifecycle.push('window-all-closed');
    if (this.listenerCount('window-all-closed') === 0) this.quit(); // Electron's default handler
    else this.emit('window-all-closed');
  }

  _notifyAndShutdown() {
    const event = new ElectronEvent();
    state.lifecycle.push('will-quit');
    this.emit('will-quit', event);
    if (event.defaultPrevented) {
      state.quitting = false;
      return;
    }
    this._shutdown(0);
  }

  _shutdown(exitCode) {
    if (state.shutdown) return;
    state.shutdown = true;
    state.quitting = true;
    state.lifecycle.push('quit');
    this.emit('quit', new ElectronEvent(), exitCode);
    // Electron ends its message loop here: no more JavaScript runs (pending promises never settle).
    state.onShutdown(exitCode);
  }

  // macOS-only and Windows-only methods exist only there (Electron binds them per platform).
  focus() {}
  setAboutPanelOptions() {}
  getLocale() {
    return 'en-US';
  }
  getSystemLocale() {
    return 'en-US';
  }
}

export const app = new App();

/**
 * Installs the methods Electron binds only on `platform` (`setAppUserModelId` on Windows; `dock`, `hide`, `show` on
 * macOS) and removes the others. Called at load with process.platform; a test simulating another OS calls it again.
 */
export function bindPlatformMethods(platform) {
  delete app.setAppUserModelId;
  delete app.dock;
  delete app.hide;
  delete app.show;
  if (platform === 'win32') {
    app.setAppUserModelId = (id) => {
      state.appUserModelId = id;
    };
  }
  if (platform === 'darwin') {
    app.dock = { show: async () => {}, hide: () => {}, setBadge: () => {}, getBadge: () => '', bounce: () => 0, isVisible: () => true };
    app.hide = () => {};
    app.show = () => {};
  }
}

bindPlatformMethods(process.platform);
