/**
 * End-to-end in the real Electron app (out/main/index.js) with Playwright's Electron driver.
 * Skips (printing `skipped: no Electron binary`) where the Electron binary is not installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { _electron, type ElectronApplication } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS, ROOT, chatWithDemo, electronBinary, ensureBuilt, makeFolders, offlineEnv } from './helpers.js';

const electronPath = electronBinary();
if (!electronPath) console.log('skipped: no Electron binary');

let app: ElectronApplication | undefined;
let xvfb: ChildProcess | undefined;

/** Starts Xvfb on a free display when there is no display on Linux. */
function ensureDisplay(env: NodeJS.ProcessEnv): void {
  if (process.platform !== 'linux' || env.DISPLAY) return;
  if (spawnSync('which', ['Xvfb']).status !== 0) return;
  const display = `:${90 + (process.pid % 100)}`;
  xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  env.DISPLAY = display;
}

describe.skipIf(!electronPath)('Electron app (real gateway, demo model)', () => {
  beforeAll(async () => {
    ensureBuilt(['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']);
    const { home, workspace } = makeFolders('electron');
    const env = offlineEnv({ AGENTDESK_HOME: home, AGENTDESK_WORKSPACE: workspace });
    ensureDisplay(env);
    if (xvfb) await new Promise((r) => setTimeout(r, 500));
    const args = [join(ROOT, 'out/main/index.js')];
    if (process.getuid?.() === 0) args.unshift('--no-sandbox'); // Chromium refuses to run as root otherwise (CI containers)
    app = await _electron.launch({ executablePath: electronPath!, args, env: env as Record<string, string>, cwd: ROOT });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    xvfb?.kill('SIGTERM');
  });

  it('opens a locked-down window exposing only window.agentdesk', async () => {
    const page = await app!.firstWindow();
    await page.waitForLoadState('domcontentloaded');
    const prefs = await app!.evaluate(({ BrowserWindow }) => {
      const wc = BrowserWindow.getAllWindows()[0]!.webContents;
      // getLastWebPreferences exists at runtime but is missing from electron.d.ts
      type Prefs = { contextIsolation?: boolean; sandbox?: boolean; nodeIntegration?: boolean };
      const p = (wc as unknown as { getLastWebPreferences(): Prefs | null }).getLastWebPreferences();
      return { contextIsolation: p?.contextIsolation, sandbox: p?.sandbox, nodeIntegration: p?.nodeIntegration, url: wc.getURL() };
    });
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(prefs.url.startsWith('file://')).toBe(true);
    const globals = await page.evaluate(() => ({
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
      api: Object.keys((window as unknown as { agentdesk: object }).agentdesk).sort(),
    }));
    expect(globals).toEqual({ require: 'undefined', process: 'undefined', api: ['onEvent', 'onMenu', 'request'] });
    const inlineRan = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.head.append(s);
      return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
    });
    expect(inlineRan).toBe(false); // the CSP header reached the file:// page
  });

  it('refuses navigation away from the app', async () => {
    const page = await app!.firstWindow();
    const before = page.url();
    await page.evaluate(() => {
      window.location.href = 'https://example.com/';
    });
    await page.waitForTimeout(300);
    expect(page.url()).toBe(before);
  });

  it('first run: the demo model in a new empty chat, the onboarding; the menu opens Settings', async () => {
    const page = await app!.firstWindow();
    await page.getByTestId('onboarding').waitFor();
    expect(await page.getByLabel('Model').inputValue()).toBe('demo/agent');
    expect(await page.getByTestId('session-item').count()).toBe(1);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'electron-first-run.png') });
    // File › Settings… (Ctrl/Cmd+,) reaches the window as a menu command.
    await app!.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.webContents.send('agentdesk:menu', 'settings'));
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await page.getByTestId('current-folder').textContent()).toBeTruthy();
    await page.getByRole('button', { name: 'Back to chat' }).click();
  });

  it('chats with the demo model: thinking, a list tool call, the demo reply', async () => {
    const page = await app!.firstWindow();
    await chatWithDemo(page);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'electron-demo.png') });
  });
});
