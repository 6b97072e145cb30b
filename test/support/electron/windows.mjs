/**
 * BrowserWindow, webContents, the main frame and ipcMain of the electron stub (Electron 41 docs:
 * browser-window.md, web-contents.md, web-frame-main.md, ipc-main.md). There is no renderer: the stub loads no
 * page. A test plays the renderer's part through the helpers at the end (a request over IPC from a frame, a
 * navigation the page starts, window.open), and the stub answers the way Electron does — handlers run with the
 * documented event objects, arguments and results are structured-cloned, a missing file fails the load.
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, ElectronEvent } from './app.mjs';
import { defaultSession } from './session.mjs';
import { state } from './state.mjs';

/** A frame of a page (WebFrameMain): `url` is the frame's current URL, `parent` is null for the top frame. */
export class WebFrameMain {
  constructor(webContents, parent = null) {
    this.webContents = webContents;
    this.parent = parent;
    this.frames = [];
    this.url = '';
    this.processId = webContents.id + 100;
    this.routingId = parent === null ? 1 : parent.frames.length + 2;
    this.frameTreeNodeId = this.routingId;
    this.detached = false;
  }
  get top() {
    return this.parent === null ? this : this.parent.top;
  }
  get origin() {
    try {
      const u = new URL(this.url);
      return u.protocol === 'file:' ? 'file://' : u.origin;
    } catch {
      return 'null';
    }
  }
  isDestroyed() {
    return this.detached;
  }
}

export class WebContents extends EventEmitter {
  #destroyed = false;
  #windowOpenHandler = undefined;
  #userAgent = `Mozilla/5.0 AgentDeskStub Electron/41.7.1`;

  constructor(owner, webPreferences = {}) {
    super();
    this.id = state.nextWebContentsId++;
    this.owner = owner;
    this.webPreferences = { ...webPreferences };
    this.mainFrame = new WebFrameMain(this);
    this.session = webPreferences.session ?? defaultSession();
  }

  getURL() {
    return this.mainFrame.url;
  }
  getTitle() {
    return '';
  }
  isDestroyed() {
    return this.#destroyed;
  }
  isLoading() {
    return false;
  }
  getUserAgent() {
    return this.#userAgent;
  }
  getOSProcessId() {
    return process.pid;
  }
  getProcessId() {
    return this.mainFrame.processId;
  }

  /** Loads `url`: a file: URL must exist (else ERR_FILE_NOT_FOUND, as Chromium reports it); others always load. */
  async loadURL(url) {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      throw new TypeError(`Invalid URL: ${url}`);
    }
    this.emit('did-start-loading');
    if (parsed.protocol === 'file:' && !existsSync(fileURLToPath(parsed))) {
      this.emit('did-fail-load', new ElectronEvent(), -6, 'ERR_FILE_NOT_FOUND', url, true, this.mainFrame.processId, this.mainFrame.routingId);
      this.emit('did-stop-loading');
      throw Object.assign(new Error(`ERR_FILE_NOT_FOUND (-6) loading '${url}'`), { errno: -6, code: 'ERR_FILE_NOT_FOUND', url });
    }
    this._commit(parsed.href);
  }

  /** `filePath` relative to the app folder, as Electron resolves it. */
  loadFile(filePath, options = {}) {
    const abs = isAbsolute(filePath) ? filePath : resolve(app.getAppPath(), filePath);
    const url = pathToFileURL(abs);
    if (options.query) url.search = new URLSearchParams(options.query).toString();
    if (options.hash) url.hash = options.hash;
    return this.loadURL(url.href);
  }

  /** The document at `href` is committed: preload runs (or fails to), then the page's load events. */
  _commit(href) {
    this.mainFrame.url = href;
    const preload = this.webPreferences.preload;
    if (preload !== undefined && (!isAbsolute(preload) || !existsSync(preload))) state.preloadErrors.push(preload);
    this.emit('did-navigate', new ElectronEvent(), href, 200, 'OK');
    this.emit('dom-ready', new ElectronEvent());
    this.emit('did-finish-load', new ElectronEvent());
    this.emit('did-stop-loading');
    if (this.owner && !this.owner._readyToShowSent) {
      this.owner._readyToShowSent = true;
      this.owner.emit('ready-to-show', new ElectronEvent());
    }
  }

  reload() {
    if (this.mainFrame.url) this._commit(this.mainFrame.url);
  }

  /** Sends to the page: arguments are serialised with the structured clone algorithm (functions throw). */
  send(channel, ...args) {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    if (typeof channel !== 'string') throw new TypeError('Missing required channel argument');
    let cloned;
    try {
      cloned = structuredClone(args);
    } catch (err) {
      throw new Error(`Failed to serialize arguments: ${err.message}`);
    }
    state.sent.push({ webContentsId: this.id, channel, args: cloned });
  }

  setWindowOpenHandler(handler) {
    this.#windowOpenHandler = handler;
  }
  get _windowOpenHandler() {
    return this.#windowOpenHandler;
  }

  openDevTools() {}
  closeDevTools() {}
  isDevToolsOpened() {
    return false;
  }

  close() {
    this.destroy();
  }
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.mainFrame.detached = true;
    this.emit('destroyed');
  }
}

export class BrowserWindow extends EventEmitter {
  #destroyed = false;
  #visible = false;
  #minimized = false;
  #focused = false;

  static getAllWindows() {
    return [...state.windows];
  }
  static getFocusedWindow() {
    return state.windows.find((w) => w.#focused) ?? null;
  }
  static fromWebContents(wc) {
    return state.windows.find((w) => w.webContents === wc) ?? null;
  }
  static fromId(id) {
    return state.windows.find((w) => w.id === id) ?? null;
  }

  constructor(options = {}) {
    super();
    if (!app.isReady()) throw new Error('Cannot create BrowserWindow before app is ready');
    this.id = state.nextWindowId++;
    this.options = { ...options };
    this._readyToShowSent = false;
    this.webContents = new WebContents(this, options.webPreferences ?? {});
    this.#visible = options.show !== false;
    state.windows.push(this);
    app.emit('browser-window-created', new ElectronEvent(), this);
    app.emit('web-contents-created', new ElectronEvent(), this.webContents);
  }

  loadURL(url, options) {
    return this.webContents.loadURL(url, options);
  }
  loadFile(filePath, options) {
    return this.webContents.loadFile(filePath, options);
  }

  isDestroyed() {
    return this.#destroyed;
  }
  show() {
    this.#visible = true;
    this.#focused = true;
    this.emit('show');
  }
  hide() {
    this.#visible = false;
    this.emit('hide');
  }
  isVisible() {
    return this.#visible;
  }
  focus() {
    this.#focused = true;
    this.emit('focus');
  }
  isFocused() {
    return this.#focused;
  }
  minimize() {
    this.#minimized = true;
    this.emit('minimize');
  }
  isMinimized() {
    return this.#minimized;
  }
  restore() {
    this.#minimized = false;
    this.emit('restore');
  }
  getTitle() {
    return this.options.title ?? '';
  }

  /** Asks to close: 'close' can be prevented (Electron: also by the page's beforeunload); then the window goes. */
  close() {
    if (this.#destroyed) return;
    const event = new ElectronEvent();
    this.emit('close', event);
    if (event.defaultPrevented) {
      app._closeCancelled();
      return;
    }
    setImmediate(() => this.destroy()); // Chromium closes the native window asynchronously
  }

  /** Closes at once: no 'close' event. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.webContents.destroy();
    state.windows.splice(state.windows.indexOf(this), 1);
    this.emit('closed');
    if (state.windows.length === 0) app._allWindowsClosed();
  }
}

/** app.quit(): close every window the way the user would. */
export function closeAllWindows() {
  for (const win of [...state.windows]) win.close();
}

/** app.exit(): every window goes at once. */
export function destroyAllWindows() {
  const shutdown = state.shutdown;
  state.shutdown = true; // no 'window-all-closed' / quit while exiting
  for (const win of [...state.windows]) win.destroy();
  state.shutdown = shutdown;
}

class IpcMain extends EventEmitter {
  handle(channel, listener) {
    if (state.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    state.handlers.set(channel, listener);
  }
  handleOnce(channel, listener) {
    this.handle(channel, (...args) => {
      state.handlers.delete(channel);
      return listener(...args);
    });
  }
  removeHandler(channel) {
    state.handlers.delete(channel);
  }
}

export const ipcMain = new IpcMain();

/**
 * The renderer's `ipcRenderer.invoke(channel, ...args)` from `frame` (default: the top frame of `webContents`):
 * arguments and result are structured-cloned; a throwing handler or a missing one rejects the way the renderer
 * sees it ("Error invoking remote method 'x': Error: …").
 */
export async function invoke(webContents, channel, args = [], frame = webContents.mainFrame) {
  const event = new ElectronEvent({ type: 'frame', sender: webContents, senderFrame: frame, frameId: frame.routingId, processId: frame.processId });
  const handler = state.handlers.get(channel);
  if (handler === undefined) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
  try {
    return structuredClone(await handler(event, ...structuredClone(args)));
  } catch (err) {
    throw new Error(`Error invoking remote method '${channel}': ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  }
}

/** A child frame (an iframe) of `parent` showing `url`. */
export function addSubframe(webContents, url, parent = webContents.mainFrame) {
  const frame = new WebFrameMain(webContents, parent);
  frame.url = url;
  parent.frames.push(frame);
  return frame;
}

/**
 * The page starts a navigation of its main frame to `url` (a link, `location.href = …`, `location.reload()`):
 * 'will-frame-navigate' then 'will-navigate' (details event first, then the deprecated positional arguments);
 * unless prevented the new document commits. Returns whether the navigation went ahead.
 */
export function navigate(webContents, url, initiator = webContents.mainFrame) {
  const fields = { url, isSameDocument: false, isMainFrame: true, frame: webContents.mainFrame, initiator };
  const frameEvent = new ElectronEvent(fields);
  webContents.emit('will-frame-navigate', frameEvent);
  if (frameEvent.defaultPrevented) return false;
  const event = new ElectronEvent(fields);
  webContents.emit('will-navigate', event, url, false, true, webContents.mainFrame.processId, webContents.mainFrame.routingId);
  if (event.defaultPrevented) return false;
  webContents.emit('did-start-navigation', new ElectronEvent(fields), url, false, true);
  webContents._commit(new URL(url).href);
  return true;
}

/** The page calls window.open(url) (or a target=_blank link): the window-open handler decides. */
export function windowOpen(webContents, url, frameName = '', features = '') {
  const handler = webContents._windowOpenHandler;
  const details = { url, frameName, features, disposition: 'new-window', referrer: { url: webContents.getURL(), policy: 'strict-origin-when-cross-origin' }, postBody: undefined };
  const result = handler ? handler(details) : { action: 'allow' };
  if (result?.action !== 'allow' && result?.action !== 'deny') throw new Error('The window open handler response must be an object with an \'action\' property of \'allow\' or \'deny\'.');
  return result;
}
