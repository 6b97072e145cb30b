/** Shared setup for the e2e tests: build on demand, temp folders, Debian Chromium flags. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import type { Locator, Page } from 'playwright-core';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const RESULTS = join(ROOT, 'test-results');

export const CHROMIUM_PATH = '/usr/bin/chromium';
/**
 * Playwright's own --disable-features list (playwright-core's chromiumSwitches, version pinned in package.json;
 * test/unit/chromium-args.test.ts checks it is all here) and two of ours. Chromium keeps only the last
 * --disable-features on its command line, so ours must carry Playwright's. Ours: the address bar's two WebUI popups
 * (WebUIOmniboxPopup, WebUIOmniboxAimPopup), which every new window — each test page — otherwise loads in a renderer
 * of its own: ~0.4 CPU-seconds per page on this machine, for a popup no test opens.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'].join(',')}`,
];

/** Builds with electron-vite when any of `outputs` (relative to the repo) is missing. */
export function ensureBuilt(outputs: string[]): void {
  if (outputs.every((p) => existsSync(join(ROOT, p)))) return;
  execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A temp home plus a workspace holding a README and a couple of files. */
export function makeFolders(prefix: string): { home: string; workspace: string } {
  const base = mkdtempSync(join(tmpdir(), `agentdesk-${prefix}-`));
  const home = join(base, 'home');
  const workspace = join(base, 'workspace');
  mkdirSync(home);
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'README.md'), '# Sample project\n\nA tiny project used by the end-to-end tests.\n');
  writeFileSync(join(workspace, 'notes.txt'), 'remember the milk\n');
  writeFileSync(join(workspace, 'src', 'index.js'), 'console.log("hello");\n');
  return { home, workspace };
}

/**
 * Environment without provider keys, so the offline demo model is the default; it streams without its pauses between
 * chunks (AGENTDESK_DEMO_CHUNK_MS=0: ~2 s less per demo turn; `extra` may set another).
 */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTDESK_DEMO_CHUNK_MS: '0', ...extra };
  for (const key of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'AGENTDESK_HOME', 'AGENTDESK_WORKSPACE', 'ELECTRON_RENDERER_URL']) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

/** The Electron executable if one is installed (never requires 'electron', which throws without a binary). */
export function electronBinary(): string | undefined {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    if (!existsSync(pathFile)) return undefined;
    const rel = readFileSync(pathFile, 'utf8').trim();
    const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(dir, 'dist');
    const exe = join(distDir, rel);
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The demo chat both UIs must support: the demo model is the default, a message gets thinking, a `list` tool call
 * and a finished "[Demo model]" reply with its badge. Returns the reply's locator for further checks.
 */
export async function chatWithDemo(page: Page): Promise<Locator> {
  await page.locator('select[aria-label="Model"] option[value="demo/agent"]').waitFor({ state: 'attached' });
  if ((await page.getByLabel('Model').inputValue()) !== 'demo/agent') throw new Error('demo/agent is not the default model');
  await page.getByLabel('Message').fill('What is in this folder?');
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.getByTestId('assistant-message').last();
  await reply.getByTestId('tool-call').filter({ hasText: 'list' }).first().waitFor();
  await reply.getByTestId('thinking').first().waitFor();
  await page.locator('[data-testid="assistant-message"][data-status="done"]').filter({ hasText: '[Demo model]' }).waitFor();
  const badge = await reply.getByTestId('demo-badge').textContent();
  if (badge !== 'Demo model') throw new Error(`demo badge reads ${JSON.stringify(badge)}`);
  return reply;
}

/** A running `node out/main/web.js` (real gateway) and the URL it printed. */
export interface WebServer {
  url: string;
  port: number;
  token: string;
  child: import('node:child_process').ChildProcess;
  /** Everything the server printed so far (the URL line included). */
  output(): { stdout: string; stderr: string };
  stop(): Promise<void>;
}

/**
 * Starts out/main/web.js on `port` (0 = any) with `env`; AGENTDESK_WEB_TOKEN in `env` fixes the token, so a restart
 * keeps the page's link valid.
 */
export async function startWebServer(
  home: string,
  workspace: string | null,
  env: NodeJS.ProcessEnv,
  port: number | null = 0,
  cwd: string = workspace ?? ROOT,
): Promise<WebServer> {
  const { spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  // null: the flag is left out (the server's own default: the remembered port, ~/AgentDesk)
  const args = ['--home', home, ...(workspace === null ? [] : ['--workspace', workspace]), ...(port === null ? [] : ['--port', String(port)])];
  const child = spawn(process.execPath, [join(ROOT, 'out/main/web.js'), ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web.js printed no URL in 20 s; stderr: ${stderr}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`web.js exited with ${code}; stderr: ${stderr}`)));
    createInterface({ input: child.stdout! }).once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const m = /^AgentDesk web UI: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64}))$/.exec(line);
  if (!m) throw new Error(`unexpected first line: ${line}`);
  return {
    url: m[1]!,
    port: Number(m[2]),
    token: m[3]!,
    child,
    output: () => ({ stdout, stderr }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Debian Chromium (test/e2e/browser.ts) and a web server on `home`/`workspace`, started side by side; `close` ends both. */
export async function startBrowserAndServer(
  home: string,
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<{ browser: import('playwright-core').Browser; web: WebServer; close(): Promise<void> }> {
  const { launchChromium } = await import('./browser.js'); // not at the top: test/bench/ui.ts loads this file outside vitest
  const [browser, web] = await Promise.all([launchChromium(), startWebServer(home, workspace, env)]);
  return { browser, web, close: async () => void (await Promise.all([browser.close(), web.stop()])) };
}
