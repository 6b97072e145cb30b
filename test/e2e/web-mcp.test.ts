/**
 * X1 Settings › MCP servers in Debian Chromium against `node out/main/web.js` (real gateway), the real reference
 * server `@modelcontextprotocol/server-everything` and the fake Anthropic server: add a server in the form and see it
 * connect with its tool count; import a claude_desktop_config.json file; switch one tool off (it is no longer sent to
 * the model); call one of its tools through an approval card that names the server, the tool and its hints.
 * Screenshots (light, dark, narrow) go to test-results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, toolLoopScenario, type FakeProvider, type RecordedRequest } from '../fake/index.js';
import { RESULTS, ROOT, ensureBuilt, makeFolders, offlineEnv, startWebServer, type WebServer } from './helpers.js';
import { launchChromium } from './browser.js';

const SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

let fake: FakeProvider;
let browser: Browser;
let web: WebServer;
let home: string;

beforeAll(async () => {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  mkdirSync(RESULTS, { recursive: true });
  fake = await startFakeAnthropic();
  const folders = makeFolders('web-mcp');
  home = folders.home;
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } },
      authProfiles: [{ id: 'fake:e2e', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/claude-fake' } },
    }),
  );
  [browser, web] = await Promise.all([
    launchChromium(),
    startWebServer(home, folders.workspace, offlineEnv({ FAKE_KEY: 'sk-ant-e2e-mcp-key-0016' })),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await fake?.close();
});

async function openSettings(page: Page): Promise<void> {
  await page.goto(web.url);
  await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.locator('#settings-mcp').scrollIntoViewIfNeeded();
}

const toolNames = (req: RecordedRequest | undefined): string[] => ((req?.body?.tools ?? []) as { name: string }[]).map((t) => t.name);

describe('Settings › MCP servers', () => {
  it('add a server in the form, see it connect with its tool count; import a claude_desktop_config.json', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await openSettings(page);
    await page.getByRole('button', { name: 'Add a server' }).click();
    await page.getByLabel('Server name').fill('everything');
    await page.getByLabel('Command', { exact: true }).fill(process.execPath);
    await page.getByLabel('Arguments').fill(`${SERVER}\nstdio`);
    await page.getByRole('button', { name: 'Add server' }).click();
    const state = page.getByTestId('mcp-state-everything');
    await expect.poll(() => state.textContent(), { timeout: 20_000 }).toMatch(/^connected · 1\d tools$/);
    await page.getByTestId('mcp-server-everything').getByText(/^Tools \(13 of 13 on, about \d+ tokens per request\)$/).click();
    await page.getByTestId('mcp-tool-everything-echo').waitFor();
    expect(await page.getByTestId('mcp-tool-everything-echo').textContent()).toContain('read-only');

    // Import: a claude_desktop_config.json opened from disk.
    const file = join(home, 'claude_desktop_config.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { imported: { command: process.execPath, args: [SERVER, 'stdio'] } } }));
    await page.getByText('Import from Claude Desktop, Cursor, Cline or VS Code').click();
    await page.getByLabel('Config file to import').setInputFiles(file);
    await expect.poll(() => page.getByTestId('note-mcp').textContent()).toContain('Imported "imported".');
    await expect.poll(() => page.getByTestId('mcp-state-imported').textContent(), { timeout: 20_000 }).toMatch(/^connected · 1\d tools$/);
    await page.getByTestId('mcp-server-imported').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, 'mcp-settings.png') });
    // The imported one is switched off again (it would only double the tools).
    await page.getByLabel('Use imported').click();
    await expect.poll(() => page.getByTestId('mcp-state-imported').textContent()).toBe('off');
    await page.close();
  }, 90_000);

  it('switch one tool off: the model is no longer offered it', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await openSettings(page);
    const row = page.getByTestId('mcp-server-everything');
    await row.getByText(/^Tools \(/).click();
    const toggle = row.getByLabel('Offer get-sum');
    await toggle.waitFor();
    await toggle.click();
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Back to chat' }).click();
    fake.enqueue({ text: 'Nothing to do.' });
    await page.getByLabel('Message').fill('which tools do you have?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('[data-testid="assistant-message"][data-status="done"]').filter({ hasText: 'Nothing to do.' }).waitFor({ timeout: 30_000 });
    const names = toolNames(fake.requests.at(-1));
    expect(names).toContain('mcp__everything__echo');
    expect(names).not.toContain('mcp__everything__get-sum');
    expect(names.some((n) => n.startsWith('mcp__imported__'))).toBe(false);
    await page.close();
  }, 90_000);

  it('call one of its tools through an approval card (server, tool, its hints, the arguments)', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, colorScheme: 'dark' });
    await page.goto(web.url);
    await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });
    const scenario = toolLoopScenario({ toolName: 'mcp__everything__echo', args: { message: 'hello from the browser' }, finalText: (r) => `The server answered: ${r}` });
    fake.enqueue(scenario, scenario);
    await page.getByLabel('Message').fill('echo something');
    await page.getByRole('button', { name: 'Send' }).click();
    const card = page.getByTestId('approval-card');
    await card.waitFor({ timeout: 30_000 });
    const info = card.getByTestId('approval-mcp');
    expect(await info.textContent()).toContain('MCP server everything · tool echo');
    expect(await card.getByRole('heading').or(card.locator('strong').first()).first().textContent()).toBe('Allow echo (MCP)?');
    expect(await card.getByTestId('approval-mcp-hints').textContent()).toBe('The server says: read-only (its own claim, not checked)');
    expect(await card.textContent()).toContain('hello from the browser');
    await card.screenshot({ path: join(RESULTS, 'mcp-approval-dark.png') });
    await card.getByRole('button', { name: 'Allow once' }).click();
    await page
      .locator('[data-testid="assistant-message"][data-status="done"]')
      .filter({ hasText: 'The server answered: Echo: hello from the browser' })
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(RESULTS, 'mcp-chat-dark.png') });
    await page.close();
  }, 90_000);

  it('a narrow window keeps the section usable', async () => {
    const page = await browser.newPage({ viewport: { width: 640, height: 800 } });
    await openSettings(page);
    await page.getByTestId('mcp-server-everything').waitFor();
    const box = await page.getByTestId('mcp-server-everything').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(640);
    const overflow = await page.locator('#settings-mcp').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await page.getByTestId('mcp-server-everything').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, 'mcp-settings-narrow.png') });
    await page.close();
  }, 60_000);
});
