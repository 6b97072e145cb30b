/**
 * End-to-end, first run and Settings: `node out/main/web.js` (real gateway) with a fake Anthropic-style provider,
 * Debian Chromium. No key at first: the window opens on the demo model in a new empty chat with the onboarding;
 * a key added in Settings lands in the REAL keychain (keytar → gnome-keyring on the test's private D-Bus session),
 * the UI and every gateway frame show only its mask, "test key" works, and a chat uses the key.
 * Without a Secret Service (no DBUS_SESSION_BUS_ADDRESS) the keychain steps are skipped with a printed reason.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeychain } from '../../main/auth/secrets.js';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { RESULTS, ensureBuilt, makeFolders, offlineEnv, startWebServer, type WebServer } from './helpers.js';
import { launchChromium } from './browser.js';

const KEY = `sk-ant-e2e-keychain-${Date.now()}-0042`;
const LABEL = `e2e${process.pid}`;
const PROFILE = `fakeant:${LABEL}`;
const hasKeychain = !!process.env.DBUS_SESSION_BUS_ADDRESS;

let fake: FakeProvider;
let browser: Browser;
let web: WebServer;

beforeAll(async () => {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  mkdirSync(RESULTS, { recursive: true });
  fake = await startFakeAnthropic();
  const { home, workspace } = makeFolders('settings');
  // A provider that needs a key (a keychain profile with no key yet): models stay keyless until Settings adds one.
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ providers: { fakeant: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } }, authProfiles: [{ id: 'fakeant:placeholder', provider: 'fakeant' }] }),
  );
  [browser, web] = await Promise.all([launchChromium(), startWebServer(home, workspace, offlineEnv())]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await fake?.close();
  if (hasKeychain) await (await openKeychain()).delete(PROFILE).catch(() => undefined);
});

describe('first run and Settings in the web UI', () => {
  it('opens on the demo model in a new empty chat with the onboarding', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    await page.goto(web.url);
    await page.getByTestId('onboarding').waitFor();
    expect(await page.getByLabel('Model').inputValue()).toBe('demo/agent');
    await expect.poll(() => page.getByTestId('session-item').count()).toBe(1);
    expect(await page.getByTestId('assistant-message').count()).toBe(0);
    await page.screenshot({ path: join(RESULTS, 'settings-first-run.png') });
    // "Pick a folder" opens the folder section; a bad path is refused in one line.
    await page.getByRole('button', { name: 'Pick a folder' }).click();
    await page.getByLabel('Folder path').fill('/definitely/not/here');
    await page.getByRole('button', { name: 'Use folder' }).click();
    expect(await page.getByTestId('note-folder').textContent()).toMatch(/no such folder/);
    await page.close();
  });

  it.skipIf(!hasKeychain)('a key added in Settings goes to the real keychain, only its mask comes back, and a chat uses it', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    const received: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => received.push(String(f.payload))));
    await page.goto(web.url);
    await page.getByTestId('onboarding').waitFor();
    await page.getByRole('button', { name: 'Add an API key' }).click();
    await page.getByLabel('Key provider').selectOption('fakeant');
    await page.getByLabel('Key label').fill(LABEL);
    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Add key' }).click();
    const row = page.locator(`[data-testid="key-row"][data-profile="${PROFILE}"]`);
    await row.waitFor();
    expect(await row.getByTestId('key-mask').textContent()).toBe(`sk-ant…${KEY.slice(-4)}`);
    await expect.poll(() => page.getByLabel('API key', { exact: true }).inputValue()).toBe(''); // emptied right after the row shows
    // In the real keychain (service "AgentDesk", account = profile id).
    expect(await (await openKeychain()).get(PROFILE)).toBe(KEY);
    await row.getByRole('button', { name: 'Test key' }).click();
    expect(await row.getByTestId('key-test').textContent()).toMatch(/^Works \(fakeant\/claude-fake, \d+ ms\)$/);
    await page.screenshot({ path: join(RESULTS, 'settings-key-added.png') });

    await page.getByRole('button', { name: 'Back to chat' }).click();
    await page.locator('select[aria-label="Model"] option[value="fakeant/claude-fake"]:not([disabled])').waitFor({ state: 'attached' });
    await page.getByLabel('Model').selectOption('fakeant/claude-fake');
    fake.setDefault({ text: 'Answered with the keychain key.' });
    await page.getByLabel('Message').fill('hello with a key');
    await page.getByLabel('Message').press('Enter');
    await page.locator('[data-testid="assistant-message"][data-status="done"]').filter({ hasText: 'Answered with the keychain key.' }).waitFor();
    const h = fake.requests.at(-1)!.headers;
    expect((h['x-api-key'] as string | undefined) ?? String(h.authorization).replace(/^Bearer\s+/i, '')).toBe(KEY);
    await page.screenshot({ path: join(RESULTS, 'settings-chat-with-key.png') });

    // The key never reached the page: not in the DOM, not in any frame from the gateway.
    expect(await page.evaluate(() => document.documentElement.outerHTML)).not.toContain(KEY);
    expect(received.length).toBeGreaterThan(0);
    for (const frame of received) expect(frame).not.toContain(KEY);
    await page.close();
  }, 60_000);
});
