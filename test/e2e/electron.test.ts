/**
 * End-to-end in the real Electron app (out/main/index.js) with Playwright's Electron driver.
 * Skips (printing `skipped: no Electron binary`) where the Electron binary is not installed — as on the machines
 * this project is built on, so this file has not run there: the shell is exercised on the electron stub instead
 * (test/integration/shell-app.test.ts, test/unit/shell-*.test.ts). Where a binary exists it checks what the stub
 * cannot: Chromium really applying the window's preferences, CSP and permission handlers.
 *
 * shell.openExternal is replaced in the app's main process before anything is clicked, so no test opens a browser.
 * Two launches: the demo model on a fresh home (first run), then a home whose config.json points at the fake
 * Anthropic server — a reply with a code block to copy, and a stalled reply in progress when the app quits.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron, type ElectronApplication } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { RESULTS, ROOT, chatWithDemo, electronBinary, ensureBuilt, makeFolders, offlineEnv } from './helpers.js';

const electronPath = electronBinary();
if (!electronPath) console.log('skipped: no Electron binary');

let xvfb: ChildProcess | undefined;

/** Starts Xvfb on a free display when there is no display on Linux. */
async function ensureDisplay(env: NodeJS.ProcessEnv): Promise<void> {
  if (process.platform !== 'linux' || env.DISPLAY) return;
  if (!xvfb) {
    if (spawnSync('which', ['Xvfb']).status !== 0) return;
    const display = `:${90 + (process.pid % 100)}`;
    xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    process.env.AGENTDESK_E2E_DISPLAY = display;
    await new Promise((r) => setTimeout(r, 500));
  }
  env.DISPLAY = process.env.AGENTDESK_E2E_DISPLAY;
}

/** Launches the built app on `env`, with shell.openExternal recording instead of opening a browser. */
async function launch(env: NodeJS.ProcessEnv): Promise<ElectronApplication> {
  ensureBuilt(['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']);
  await ensureDisplay(env);
  const args = [join(ROOT, 'out/main/index.js')];
  if (process.getuid?.() === 0) args.unshift('--no-sandbox'); // Chromium refuses to run as root otherwise (CI containers)
  const app = await _electron.launch({ executablePath: electronPath!, args, env: env as Record<string, string>, cwd: ROOT });
  await app.evaluate(({ shell }) => {
    const opened: string[] = [];
    (globalThis as { __openedExternal?: string[] }).__openedExternal = opened;
    shell.openExternal = async (url: string) => {
      opened.push(url);
    };
  });
  return app;
}

const openedExternal = (app: ElectronApplication) => app.evaluate(() => [...((globalThis as { __openedExternal?: string[] }).__openedExternal ?? [])]);

afterAll(() => {
  xvfb?.kill('SIGTERM');
});

describe.skipIf(!electronPath)('Electron app: first run (real gateway, demo model)', () => {
  let app: ElectronApplication;

  beforeAll(async () => {
    const { home, workspace } = makeFolders('electron');
    app = await launch(offlineEnv({ AGENTDESK_HOME: home, AGENTDESK_WORKSPACE: workspace }));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
  });

  it('opens a locked-down window exposing only window.agentdesk', async () => {
    const page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
    const main = await app.evaluate(({ BrowserWindow, session }) => ({
      url: BrowserWindow.getAllWindows()[0]!.webContents.getURL(),
      spellcheck: session.defaultSession.isSpellCheckerEnabled(),
    }));
    expect(main.url.startsWith('file://')).toBe(true);
    expect(main.spellcheck).toBe(process.platform === 'darwin');
    // contextIsolation + no nodeIntegration + sandbox, as the page sees them: no Node, only the preload's one object.
    const globals = await page.evaluate(() => ({
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
      module: typeof (window as unknown as { module?: unknown }).module,
      api: Object.keys((window as unknown as { agentdesk: object }).agentdesk).sort(),
    }));
    expect(globals).toEqual({ require: 'undefined', process: 'undefined', module: 'undefined', api: ['onEvent', 'onMenu', 'request'] });
    const csp = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.head.append(s);
      return {
        inlineRan: (window as unknown as { __inlineRan?: boolean }).__inlineRan === true,
        meta: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? null,
      };
    });
    expect(csp.inlineRan).toBe(false);
    expect(csp.meta).toMatch(/script-src 'self'/);
    // Permissions: the clipboard write the Copy buttons need is granted, the rest is not.
    const permissions = await page.evaluate(async () => {
      const state = async (name: string) => (await navigator.permissions.query({ name: name as PermissionName }).catch(() => ({ state: 'error' }))).state;
      return { write: await state('clipboard-write'), read: await state('clipboard-read'), geolocation: await state('geolocation') };
    });
    expect(permissions.write).toBe('granted');
    expect(permissions.read).not.toBe('granted');
    expect(permissions.geolocation).not.toBe('granted');
  });

  it('refuses navigation away from the app; a web link goes to the system browser', async () => {
    const page = await app.firstWindow();
    const before = page.url();
    await page.evaluate(() => {
      window.location.href = 'https://example.com/';
    });
    await expect.poll(() => openedExternal(app)).toEqual(['https://example.com/']);
    expect(page.url()).toBe(before);
  });

  it('first run: the demo model in a new empty chat, the onboarding; the menu opens Settings', async () => {
    const page = await app.firstWindow();
    await page.getByTestId('onboarding').waitFor();
    expect(await page.getByLabel('Model').inputValue()).toBe('demo/agent');
    expect(await page.getByTestId('session-item').count()).toBe(1);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'electron-first-run.png') });
    // File › Settings… (Ctrl/Cmd+,) reaches the window as a menu command.
    await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.webContents.send('agentdesk:menu', 'settings'));
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await page.getByTestId('current-folder').textContent()).toBeTruthy();
    await page.getByRole('button', { name: 'Back to chat' }).click();
  });

  it('chats with the demo model: thinking, a list tool call, the demo reply', async () => {
    const page = await app.firstWindow();
    await chatWithDemo(page);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'electron-demo.png') });
  });
});

describe.skipIf(!electronPath)('Electron app: copy, and quitting during a run (fake provider)', () => {
  const CODE = "console.log('copied from AgentDesk');";
  let app: ElectronApplication;
  let fake: FakeProvider;
  let home: string;

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    const folders = makeFolders('electron-quit');
    home = folders.home;
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } },
        authProfiles: [{ id: 'fake:e2e', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
        agent: { model: { primary: 'fake/claude-fake' } },
      }),
    );
    app = await launch(offlineEnv({ AGENTDESK_HOME: home, AGENTDESK_WORKSPACE: folders.workspace, FAKE_KEY: 'sk-ant-electron-e2e-0001' }));
  }, 180_000);

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await fake?.close();
  });

  it('copies a code block: the Copy button says Copied and the clipboard holds the code', async () => {
    const page = await app.firstWindow();
    await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });
    fake.enqueue({ text: `Here it is:\n\n\`\`\`js\n${CODE}\n\`\`\`\n` });
    await page.getByLabel('Message').fill('Show me a line of code');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('[data-testid="assistant-message"][data-status="done"]').getByTestId('code-block').waitFor();
    const copy = page.getByRole('button', { name: 'Copy code' }).first();
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    expect(await app.evaluate(({ clipboard }) => clipboard.readText())).toBe(CODE);
  });

  it('quitting while a reply streams waits for the run to end: its transcript ends with the stopped turn', async () => {
    const page = await app.firstWindow();
    fake.enqueue({ text: 'A partial answer before the provider stalls', chunkSize: 6, fault: { kind: 'stall', afterEvents: 6 } });
    await page.getByLabel('Message').fill('A question left unanswered');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 15_000 }).toContain('A partial');
    const child = app.process();
    await app.close(); // app.quit() in the main process, then waits for the process to end
    expect(child.exitCode).toBe(0);
    const sessions = join(home, 'sessions');
    const transcript = readdirSync(sessions)
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => readFileSync(join(sessions, n), 'utf8'))
      .find((text) => text.includes('A question left unanswered'));
    expect(transcript).toBeDefined();
    const last = JSON.parse(transcript!.trim().split('\n').at(-1)!) as { type: string; message?: { role: string; stopReason: string } };
    expect(last).toMatchObject({ type: 'message', message: { role: 'assistant', stopReason: 'aborted' } });
    expect(transcript).toContain('A partial');
  });
});
