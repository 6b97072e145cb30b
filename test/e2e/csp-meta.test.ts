/**
 * The built page's own Content-Security-Policy <meta> (issue 20): the Electron window loads out/renderer/index.html
 * from file:, where a response header is not documented to apply — so the meta must hold by itself. Debian
 * Chromium opens the built file with no header at all: the app's own scripts and styles load and run ('self'), an
 * injected inline script does not, a remote image is refused.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../main/shell/csp.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, ensureBuilt } from './helpers.js';

let browser: Browser;

beforeAll(async () => {
  ensureBuilt(['out/renderer/index.html']);
  // file: module scripts need this in a browser (Electron allows its app's own files)
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--allow-file-access-from-files'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the built index.html on file:, no CSP header', () => {
  it('carries the policy in a meta that blocks inline script and remote content, and lets the app run', async () => {
    const page = await browser.newPage();
    const response = await page.goto(pathToFileURL(join(ROOT, 'out/renderer/index.html')).href);
    expect(response?.headers()['content-security-policy']).toBeUndefined();
    expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toBe(contentSecurityPolicy({ meta: true }));
    // The bundled script ran (it renders into #root) and its stylesheet applied.
    await page.waitForFunction(() => (document.getElementById('root')?.childElementCount ?? 0) > 0, undefined, { timeout: 15_000 });
    const result = await page.evaluate(async () => {
      const violated: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violated.push(e.effectiveDirective));
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.head.append(s);
      const img = new Image();
      const remote = await new Promise<string>((done) => {
        img.onload = () => done('loaded');
        img.onerror = () => done('blocked');
        img.src = 'https://example.com/x.png';
      });
      await new Promise((r) => setTimeout(r, 50)); // violation events are dispatched asynchronously
      return { inline: (window as unknown as { __inlineRan?: boolean }).__inlineRan === true, remote, violated: violated.sort(), styled: document.styleSheets.length };
    });
    expect(result).toMatchObject({ inline: false, remote: 'blocked', violated: ['img-src', 'script-src-elem'] });
    expect(result.styled).toBeGreaterThan(0);
    await page.close();
  });
});
