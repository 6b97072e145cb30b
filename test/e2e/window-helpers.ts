/**
 * Shared set-up of the "window a person lives in" end-to-end tests (issue 18): `out/main/web.js` on a fake
 * Anthropic-style provider (real SDK), Debian Chromium, pages at the two sizes and two themes every screen is
 * checked at, and screenshots under test-results/window/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { launchChromium } from './browser.js';
import { RESULTS, ensureBuilt, makeFolders, offlineEnv, startWebServer, type WebServer } from './helpers.js';

export const SIZES = [
  { width: 1280, height: 800 },
  { width: 640, height: 480 },
] as const;
export const THEMES = ['light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
export type Size = (typeof SIZES)[number];

export const SHOTS = join(RESULTS, 'window');

export interface WindowRig {
  fake: FakeProvider;
  web: WebServer;
  browser: Browser;
  home: string;
  workspace: string;
  close(): Promise<void>;
}

export const FAKE_KEY = 'sk-ant-window-key-0001';

/** config.json of the fake provider (one key); `extra` is merged into `agent`. */
export function fakeConfig(fake: FakeProvider, extra: Record<string, unknown> = {}, more: Record<string, unknown> = {}): unknown {
  return {
    providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake', reasoning: true }, { id: 'claude-other' }] } },
    authProfiles: [{ id: 'fake:main', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
    agent: { model: { primary: 'fake/claude-fake' }, ...extra },
    ...more,
  };
}

export async function startRig(
  prefix: string,
  opts: { config?: (fake: FakeProvider) => unknown; env?: Record<string, string>; before?: (home: string, workspace: string) => Promise<void> | void } = {},
): Promise<WindowRig> {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  mkdirSync(SHOTS, { recursive: true });
  const fake = await startFakeAnthropic();
  const { home, workspace } = makeFolders(prefix);
  writeFileSync(join(home, 'config.json'), JSON.stringify((opts.config ?? ((f) => fakeConfig(f)))(fake)));
  await opts.before?.(home, workspace);
  const [browser, web] = await Promise.all([
    launchChromium(),
    startWebServer(home, workspace, offlineEnv({ FAKE_KEY, ...opts.env })),
  ]);
  return {
    fake,
    web,
    browser,
    home,
    workspace,
    close: async () => void (await Promise.all([browser.close(), web.stop(), fake.close()])),
  };
}

/** A page at `size` in `theme` (or `page`, made by the caller), on the app, once the model list has loaded. */
export async function openApp(rig: WindowRig, size: Size = SIZES[0], theme: Theme = 'light', url = rig.web.url, page?: Page): Promise<Page> {
  page ??= await rig.browser.newPage({ viewport: { ...size }, colorScheme: theme });
  await page.goto(url);
  await page.locator('select[aria-label="Model"] option').first().waitFor({ state: 'attached', timeout: 20_000 });
  return page;
}

export const shot = (page: Page, name: string): Promise<Buffer> => {
  const v = page.viewportSize()!;
  return page.screenshot({ path: join(SHOTS, `${name}-${v.width}x${v.height}.png`) });
};

export async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

export const replies = (page: Page) => page.getByTestId('assistant-message');
export const lastReply = (page: Page) => page.getByTestId('assistant-message').last();
