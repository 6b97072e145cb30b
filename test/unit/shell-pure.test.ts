/**
 * The desktop shell's pure parts, for every platform (Windows and macOS cannot run here): which URL is the app's
 * page (Windows drive letters compare case-insensitively), which permissions it gets, per-OS conventions, and the
 * CSP in its header and <meta> forms.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devRendererUrl, isAppUrl, samePath } from '../../main/shell/paths.js';
import { permissionAllowed } from '../../main/shell/permissions.js';
import { APP_ID, appUserModelId, quitsWhenAllWindowsClosed, spellcheckEnabled } from '../../main/shell/platform.js';
import { contentSecurityPolicy } from '../../main/shell/csp.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('isAppUrl: the built page', () => {
  const WIN = 'C:\\Users\\Ann\\AppData\\Local\\Programs\\AgentDesk\\resources\\app.asar\\out\\renderer\\index.html';
  const WIN_LOWER_DRIVE = `c${WIN.slice(1)}`;
  it.each([
    // Windows: Chromium's file: URL upper-cases the drive letter; the path Node built may not.
    ['win32', WIN_LOWER_DRIVE, 'file:///C:/Users/Ann/AppData/Local/Programs/AgentDesk/resources/app.asar/out/renderer/index.html', true],
    ['win32', WIN, 'file:///c:/Users/Ann/AppData/Local/Programs/AgentDesk/resources/app.asar/out/renderer/index.html', true],
    ['win32', WIN, 'file:///C:/Users/Ann/AppData/Local/Programs/AgentDesk/resources/app.asar/out/renderer/index.html#chat', true],
    ['win32', WIN, 'file:///C:/Users/Ann/AppData/Local/Programs/AgentDesk/resources/app.asar/out/renderer/other.html', false],
    ['win32', WIN, 'file:///D:/Users/Ann/AppData/Local/Programs/AgentDesk/resources/app.asar/out/renderer/index.html', false],
    ['win32', WIN, 'file://server/share/index.html', false],
    ['win32', WIN, 'https://example.com/index.html', false],
    // POSIX: exact paths (case matters on Linux).
    ['linux', '/opt/AgentDesk/resources/app.asar/out/renderer/index.html', 'file:///opt/AgentDesk/resources/app.asar/out/renderer/index.html', true],
    ['linux', '/opt/AgentDesk/resources/app.asar/out/renderer/index.html', 'file:///opt/AgentDesk/resources/app.asar/out/renderer/../renderer/index.html', true],
    ['linux', '/opt/AgentDesk/resources/app.asar/out/renderer/index.html', 'file:///opt/agentdesk/resources/app.asar/out/renderer/index.html', false],
    ['linux', '/opt/AgentDesk/resources/app.asar/out/renderer/index.html', 'file:///etc/passwd', false],
    ['darwin', '/Applications/AgentDesk.app/Contents/Resources/app.asar/out/renderer/index.html', 'file:///Applications/AgentDesk.app/Contents/Resources/app.asar/out/renderer/index.html', true],
    ['linux', '/opt/x/index.html', 'not a url', false],
    ['linux', '/opt/x/index.html', 'file:///opt/x/index%2Fhtml', false],
  ] as const)('%s: page %s, url %s → %s', (platform, rendererIndex, url, expected) => {
    expect(isAppUrl(url, { devUrl: undefined, rendererIndex, platform })).toBe(expected);
  });

  it.each([
    ['C:\\a\\b', 'c:\\a\\b', 'win32', true],
    ['C:\\a\\b', 'C:\\a\\B', 'win32', false],
    ['/a/b', '/a/B', 'linux', false],
    ['/a/b/../b', '/a/b', 'linux', true],
  ] as const)('samePath(%s, %s) on %s → %s', (a, b, platform, expected) => {
    expect(samePath(a, b, platform)).toBe(expected);
  });
});

describe('isAppUrl: the dev server (npm run dev)', () => {
  const devUrl = 'http://localhost:5173/';
  it.each([
    ['http://localhost:5173/', true],
    ['http://localhost:5173/index.html', true],
    ['http://localhost:5173/?t=1#x', true],
    ['http://localhost:5173/@fs/etc/passwd', false],
    ['http://localhost:5174/', false],
    ['http://127.0.0.1:5173/', false],
    ['file:///anything/index.html', false],
  ])('%s → %s', (url, expected) => {
    expect(isAppUrl(url, { devUrl })).toBe(expected);
  });

  it.each([
    [{ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, 'http://localhost:5173'],
    [{ ELECTRON_RENDERER_URL: 'http://127.0.0.1:5173/' }, 'http://127.0.0.1:5173/'],
    [{ ELECTRON_RENDERER_URL: 'https://evil.example/' }, undefined],
    [{}, undefined],
  ])('devRendererUrl(%j) → %s', (env, expected) => {
    expect(devRendererUrl(env)).toBe(expected);
  });
});

describe('permissionAllowed', () => {
  const ours = (url: string) => url === 'file:///app/index.html';
  it.each([
    ['clipboard-sanitized-write', { isMainFrame: true, requestingUrl: 'file:///app/index.html' }, true],
    ['clipboard-sanitized-write', { isMainFrame: false, requestingUrl: 'file:///app/index.html' }, false],
    ['clipboard-sanitized-write', { isMainFrame: true }, false],
    ['clipboard-sanitized-write', { isMainFrame: true, requestingUrl: 'https://x.test/' }, false],
    ['clipboard-read', { isMainFrame: true, requestingUrl: 'file:///app/index.html' }, false],
    ['media', { isMainFrame: true, requestingUrl: 'file:///app/index.html' }, false],
    ['notifications', { isMainFrame: true, requestingUrl: 'file:///app/index.html' }, false],
  ])('%s %j → %s', (permission, asker, expected) => {
    expect(permissionAllowed(permission, asker, ours)).toBe(expected);
  });
});

describe('platform conventions', () => {
  it.each([
    ['darwin', false, true, undefined, undefined],
    ['linux', true, false, undefined, undefined],
    ['win32', true, false, APP_ID, '/dev/electron.exe'],
  ] as const)('%s: quit on last window %s, spellcheck %s, AppUserModelID packaged %s / dev %s', (platform, quits, spell, packagedId, devId) => {
    expect(quitsWhenAllWindowsClosed(platform)).toBe(quits);
    expect(spellcheckEnabled(platform)).toBe(spell);
    expect(appUserModelId(platform, true, '/dev/electron.exe')).toBe(packagedId);
    expect(appUserModelId(platform, false, '/dev/electron.exe')).toBe(devId);
  });

  it('the AppUserModelID is the installer\'s appId', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'electron-builder.json'), 'utf8')).appId).toBe(APP_ID);
  });
});

describe('contentSecurityPolicy', () => {
  it('header: no remote anything, no inline script, no framing', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'",
    );
  });
  it('meta: the same without frame-ancestors (not allowed in a meta policy)', () => {
    expect(contentSecurityPolicy({ meta: true })).toBe(contentSecurityPolicy().replace("; frame-ancestors 'none'", ''));
  });
  it('dev server: inline preamble and the HMR socket', () => {
    expect(contentSecurityPolicy({ devServer: true })).toContain("script-src 'self' 'unsafe-inline'");
    expect(contentSecurityPolicy({ devServer: true })).toContain('ws://localhost:*');
  });
});
