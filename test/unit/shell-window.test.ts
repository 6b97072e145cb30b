/**
 * main/shell/window.ts and ipc.ts on the electron stub (test/support/electron, mapped in for this file only by
 * vi.mock): the session's permission handlers (the Copy buttons' clipboard write, for the app's page only), the
 * CSP header, the spellchecker per platform, navigation (the app's own page may reload — Vite's reloads in
 * `npm run dev` — everything else goes to the OS browser if it is http(s), or nowhere), window.open, and the IPC
 * sender check.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../support/electron/electron.mjs'));

import { __stub, BrowserWindow, session } from '../support/electron/electron.mjs';
import { createMainWindow, hardenSession, windowWebPreferences } from '../../main/shell/window.js';
import { bindIpc } from '../../main/shell/ipc.js';
import { pathToFileURL } from 'node:url';
import { PRELOAD_PATH, RENDERER_INDEX } from '../../main/shell/paths.js';
import { contentSecurityPolicy } from '../../main/shell/csp.js';
import { GatewayError, type GatewayApi } from '../../main/gateway/types.js';

const APP = pathToFileURL(RENDERER_INDEX).href;

beforeEach(() => {
  __stub.reset({ onShutdown: () => undefined });
  __stub.ready();
  delete process.env.ELECTRON_RENDERER_URL;
});
afterEach(() => {
  delete process.env.ELECTRON_RENDERER_URL;
});

/** The frame now shows `url` (WebFrameMain.url is read-only in Electron's types; the stub's frame is ours). */
function show(frame: Electron.WebFrameMain, url: string): void {
  (frame as { url: string }).url = url;
}

/** A window showing `url` in its top frame (nothing is loaded: the stub has no renderer). */
function windowAt(url: string, platform: NodeJS.Platform = 'linux'): Electron.BrowserWindow {
  const win = createMainWindow(platform);
  show(win.webContents.mainFrame, url);
  return win;
}

describe('session: permissions', () => {
  it.each([
    ['clipboard-sanitized-write', true, APP, true],
    ['clipboard-sanitized-write', true, `${APP}#settings`, true],
    ['clipboard-sanitized-write', false, APP, false], // an iframe, even on our URL
    ['clipboard-sanitized-write', true, 'https://example.com/', false],
    ['clipboard-sanitized-write', true, 'file:///etc/passwd', false],
    ['clipboard-read', true, APP, false],
    ['media', true, APP, false],
    ['notifications', true, APP, false],
    ['geolocation', true, APP, false],
    ['openExternal', true, APP, false],
    ['fileSystem', true, APP, false],
  ] as const)('request %s (top frame: %s) from %s → %s', async (permission, isMainFrame, requestingUrl, granted) => {
    hardenSession(session.defaultSession, 'linux');
    const win = windowAt(APP);
    expect(await __stub.requestPermission(win.webContents, permission, { isMainFrame, requestingUrl })).toBe(granted);
    expect(__stub.checkPermission(win.webContents, permission, 'file://', { isMainFrame, requestingUrl })).toBe(granted);
  });

  it('a check without a requesting URL (a cross-origin subframe) or without webContents is denied', () => {
    hardenSession(session.defaultSession, 'linux');
    const win = windowAt(APP);
    expect(__stub.checkPermission(win.webContents, 'clipboard-sanitized-write', 'https://x.test', { isMainFrame: false })).toBe(false);
    expect(__stub.checkPermission(null, 'clipboard-sanitized-write', 'file://', { isMainFrame: true, requestingUrl: APP })).toBe(false);
  });

  it('dev mode: the dev server page may write the clipboard, other pages on that server may not', async () => {
    process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173/';
    hardenSession(session.defaultSession, 'linux');
    const win = windowAt('http://localhost:5173/');
    const ask = (requestingUrl: string) => __stub.requestPermission(win.webContents, 'clipboard-sanitized-write', { isMainFrame: true, requestingUrl });
    expect(await ask('http://localhost:5173/')).toBe(true);
    expect(await ask('http://localhost:5173/@fs/etc/passwd')).toBe(false);
    expect(await ask('http://localhost:5174/')).toBe(false);
  });
});

describe('session: CSP header and spellchecker', () => {
  it('every response gets the policy header', async () => {
    hardenSession(session.defaultSession, 'linux');
    const headers = await __stub.receiveHeaders(session.defaultSession, { url: APP, responseHeaders: { 'Content-Type': ['text/html'] } });
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [contentSecurityPolicy()] });
  });

  it.each([
    ['darwin', true],
    ['linux', false],
    ['win32', false],
  ] as const)('%s: spellchecker %s (session and window)', (platform, on) => {
    hardenSession(session.defaultSession, platform);
    expect(session.defaultSession.isSpellCheckerEnabled()).toBe(on);
    const win = createMainWindow(platform);
    expect((win as unknown as { options: Electron.BrowserWindowConstructorOptions }).options.webPreferences?.spellcheck).toBe(on);
  });
});

describe('window', () => {
  it('is created hidden with the locked-down preferences and shows itself once ready', async () => {
    const win = createMainWindow('linux');
    const options = (win as unknown as { options: Electron.BrowserWindowConstructorOptions }).options;
    expect(options.webPreferences).toEqual(windowWebPreferences('linux'));
    expect(options.webPreferences).toMatchObject({ preload: PRELOAD_PATH, contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false });
    expect(win.isVisible()).toBe(false);
    win.emit('ready-to-show');
    expect(win.isVisible()).toBe(true);
  });

  it.each([
    ['the app page again (a reload)', APP, true, []],
    ['the app page with a fragment', `${APP}#x`, true, []],
    ['an https page', 'https://example.com/docs', false, ['https://example.com/docs']],
    ['an http page', 'http://example.com/', false, ['http://example.com/']],
    ['another local file', 'file:///etc/passwd', false, []],
    ['a file next to the page', APP.replace(/index\.html$/, 'other.html'), false, []],
    ['a custom protocol', 'vscode://open?x=1', false, []],
  ])('navigating to %s (%s): goes ahead %s, opened outside %j', (_name, url, allowed, opened) => {
    const win = windowAt(APP);
    expect(__stub.navigate(win.webContents, url)).toBe(allowed);
    expect(__stub.state.openedExternal).toEqual(opened);
    expect(win.webContents.getURL()).toBe(allowed ? new URL(url).href : APP);
  });

  it('dev mode: Vite reloading the page goes ahead; a different path on the dev server does not', () => {
    process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173/';
    const win = windowAt('http://localhost:5173/');
    expect(__stub.navigate(win.webContents, 'http://localhost:5173/')).toBe(true);
    expect(__stub.navigate(win.webContents, 'http://localhost:5173/@fs/etc/passwd')).toBe(false);
    expect(__stub.state.openedExternal).toEqual(['http://localhost:5173/@fs/etc/passwd']); // http(s): the OS browser
  });

  it.each([
    ['https://example.com/', ['https://example.com/']],
    ['file:///etc/passwd', []],
    ['javascript:alert(1)', []],
  ])('window.open(%s) is denied; opened outside: %j', (url, opened) => {
    const win = windowAt(APP);
    expect(__stub.windowOpen(win.webContents, url)).toEqual({ action: 'deny' });
    expect(__stub.state.openedExternal).toEqual(opened);
    expect(BrowserWindow.getAllWindows()).toHaveLength(1);
  });
});

describe('IPC: only the window\'s top frame on the app page may call the gateway', () => {
  const gateway: GatewayApi = {
    request: async (method: string, params: unknown) => {
      if (method === 'boom') throw new GatewayError('bad_request', 'no good');
      if (method === 'crash') throw new Error('disk on fire');
      return { method, params };
    },
    onEvent: () => () => undefined,
  } as unknown as GatewayApi;

  function setup() {
    const win = windowAt(APP);
    bindIpc(() => gateway, () => win);
    return win;
  }

  it('the top frame: the request reaches the gateway; its errors come back as envelopes', async () => {
    const win = setup();
    const call = (method: unknown, params?: unknown) => __stub.invoke(win.webContents, 'agentdesk:request', [method, params]);
    expect(await call('app.info', {})).toEqual({ ok: true, result: { method: 'app.info', params: {} } });
    expect(await call('app.info')).toEqual({ ok: true, result: { method: 'app.info', params: {} } });
    expect(await call('boom', {})).toEqual({ ok: false, error: { code: 'bad_request', message: 'no good' } });
    expect(await call('crash', {})).toEqual({ ok: false, error: { code: 'internal', message: 'disk on fire' } });
    expect(await call(42, {})).toEqual({ ok: false, error: { code: 'bad_request', message: 'method must be a string' } });
  });

  it.each([
    ['a subframe on the app URL', (win: Electron.BrowserWindow) => ({ wc: win.webContents, frame: __stub.addSubframe(win.webContents, APP) })],
    ['the top frame after it navigated away', (win: Electron.BrowserWindow) => {
      show(win.webContents.mainFrame, 'https://evil.example/');
      return { wc: win.webContents, frame: win.webContents.mainFrame };
    }],
    ['another window', () => {
      const other = new BrowserWindow({ show: false });
      show(other.webContents.mainFrame, APP);
      return { wc: other.webContents, frame: other.webContents.mainFrame };
    }],
  ])('%s is refused', async (_name, from) => {
    const win = setup();
    const { wc, frame } = from(win);
    expect(await __stub.invoke(wc, 'agentdesk:request', ['app.info', {}], frame)).toEqual({ ok: false, error: { code: 'forbidden', message: 'sender not allowed' } });
  });

  it('a destroyed window is refused', async () => {
    const win = setup();
    const wc = win.webContents;
    win.destroy();
    expect(await __stub.invoke(wc, 'agentdesk:request', ['app.info', {}])).toEqual({ ok: false, error: { code: 'forbidden', message: 'sender not allowed' } });
  });
});
