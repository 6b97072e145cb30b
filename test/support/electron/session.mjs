/**
 * `session` of the electron stub (docs/api/session.md, web-request.md): the default session exists once the app
 * is ready (reading it earlier throws, as in Electron). It keeps the handlers the app installs; the helpers at the
 * end play Chromium's part — a permission request or check from a page, a response passing through webRequest.
 * Without a handler Electron grants every permission; the stub does the same.
 */
import { state } from './state.mjs';

class WebRequest {
  onHeadersReceivedListener = null;
  onBeforeRequestListener = null;
  /** (listener) or (filter, listener); null removes it. */
  onHeadersReceived(filterOrListener, maybeListener) {
    this.onHeadersReceivedListener = (maybeListener === undefined ? filterOrListener : maybeListener) ?? null;
  }
  onBeforeRequest(filterOrListener, maybeListener) {
    this.onBeforeRequestListener = (maybeListener === undefined ? filterOrListener : maybeListener) ?? null;
  }
}

export class Session {
  webRequest = new WebRequest();
  permissionRequestHandler = null;
  permissionCheckHandler = null;
  devicePermissionHandler = null;
  spellCheckerEnabled = true;
  spellCheckerDictionaryDownloadURL = undefined;
  availableSpellCheckerLanguages = ['en-US'];

  setPermissionRequestHandler(handler) {
    if (handler !== null && typeof handler !== 'function') throw new TypeError('Must pass null or function');
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler) {
    if (handler !== null && typeof handler !== 'function') throw new TypeError('Must pass null or function');
    this.permissionCheckHandler = handler;
  }
  setDevicePermissionHandler(handler) {
    if (handler !== null && typeof handler !== 'function') throw new TypeError('Must pass null or function');
    this.devicePermissionHandler = handler;
  }
  setSpellCheckerEnabled(enable) {
    this.spellCheckerEnabled = Boolean(enable);
  }
  isSpellCheckerEnabled() {
    return this.spellCheckerEnabled;
  }
  setSpellCheckerDictionaryDownloadURL(url) {
    this.spellCheckerDictionaryDownloadURL = url;
  }
  setSpellCheckerLanguages() {}
  getSpellCheckerLanguages() {
    return ['en-US'];
  }
}

let instance;

/** The default session (created on first use after ready). */
export function defaultSession() {
  if (!state.ready) throw new Error('Session can only be received when app is ready');
  instance ??= new Session();
  return instance;
}

export function resetSessions() {
  instance = undefined;
}

export const session = {
  get defaultSession() {
    return defaultSession();
  },
  fromPartition() {
    return defaultSession();
  },
};

/**
 * A page's permission request (Chromium asks after a failed check): `details` is a PermissionRequest
 * ({ isMainFrame, requestingUrl }). Resolves to whether it was granted.
 */
export function requestPermission(webContents, permission, details) {
  const ses = webContents.session;
  if (!ses.permissionRequestHandler) return Promise.resolve(true);
  return new Promise((resolveGrant) => {
    ses.permissionRequestHandler(webContents, permission, (granted) => resolveGrant(granted === true), details);
  });
}

/** A page's permission check: `details` is { isMainFrame, requestingUrl?, embeddingOrigin?, … }. */
export function checkPermission(webContents, permission, requestingOrigin, details) {
  const ses = webContents?.session ?? defaultSession(); // null webContents: a check from outside any page
  if (!ses.permissionCheckHandler) return true;
  return ses.permissionCheckHandler(webContents, permission, requestingOrigin, details) === true;
}

/** A response for `url` passing through webRequest.onHeadersReceived: the headers the page then sees. */
export function receiveHeaders(ses, details) {
  const listener = ses.webRequest.onHeadersReceivedListener;
  if (!listener) return Promise.resolve(details.responseHeaders);
  return new Promise((resolveHeaders) => {
    listener({ id: 1, method: 'GET', resourceType: 'mainFrame', referrer: '', timestamp: Date.now(), statusLine: 'HTTP/1.1 200 OK', statusCode: 200, ...details }, (response = {}) => {
      resolveHeaders(response.cancel ? null : (response.responseHeaders ?? details.responseHeaders));
    });
  });
}
