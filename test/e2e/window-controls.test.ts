/**
 * Issue 18 items 12, 13, 14 and 16 in Chromium: the controls people reach for.
 * - `/` lists the commands with a line each (keyboard: ↓, Enter, Tab, Esc); /help and `?` open the keys and
 *   commands; Ctrl/Cmd+K also runs actions (theme, settings).
 * - Words instead of jargon: queue modes said as what they do; one thinking list without duplicates; chats never
 *   titled by their raw key.
 * - The run timeout refuses what it cannot use and says so; a confirmation goes away by itself; a removed key
 *   can be put back.
 * - Providers from presets, edited in place, a key in the same form; a failed model fetch says how to type them.
 * Shots at 1280 × 800 (light) and 640 × 480 (dark) under test-results/window/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastFailures, formatFailures } from './contrast.js';
import { describeLayout, layoutProblems } from './layout-check.js';
import { OK_NOTE_MS } from '../../renderer/src/store/settings-store.js';
import { SIZES, openApp, send, shot, startRig, type WindowRig } from './window-helpers.js';

const hasKeychain = !!process.env.DBUS_SESSION_BUS_ADDRESS;
let rig: WindowRig;
let models: Server; // an OpenAI-compatible GET /v1/models
let modelsUrl = '';
beforeAll(async () => {
  rig = await startRig('win-controls');
  models = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'local-b', object: 'model' }, { id: 'local-a', object: 'model' }] }));
    } else res.writeHead(404).end('{}');
  });
  await new Promise<void>((r) => models.listen(0, '127.0.0.1', r));
  modelsUrl = `http://127.0.0.1:${(models.address() as AddressInfo).port}/v1`;
}, 180_000);
afterAll(async () => {
  await rig?.close();
  await new Promise<void>((r) => models?.close(() => r()));
});

const box = (page: import('playwright-core').Page) => page.getByRole('textbox', { name: 'Message' });

describe('the slash menu, the palette and the shortcut sheet', () => {
  for (const [size, theme] of [[SIZES[0], 'light'], [SIZES[1], 'dark']] as const) {
    it(`/ lists the commands and runs them from the keyboard (${size.width}×${size.height})`, async () => {
      const page = await openApp(rig, size, theme);
      await page.locator('main.chat[data-ready="true"]').waitFor();
      await box(page).fill('/');
      const menu = page.getByTestId('slash-menu');
      await menu.waitFor();
      const names = await menu.locator('.slash-name').allTextContents();
      for (const c of ['/new', '/reset', '/compact', '/model <provider/model>', '/think <level>', '/stop', '/help']) expect(names).toContain(c);
      expect(await menu.locator('.slash-hint').first().textContent()).toMatch(/\w+ \w+/); // a line each
      await shot(page, `slash-menu-${theme}`);
      const problems = [...describeLayout(await layoutProblems(page)), ...formatFailures(await contrastFailures(page)).split('\n').filter(Boolean)];
      expect(problems).toEqual([]);
      // ↓ moves the selection; typing filters; Tab completes a command that takes an argument
      expect(await menu.locator('[aria-selected="true"] .slash-name').textContent()).toBe('/new');
      await box(page).press('ArrowDown');
      expect(await menu.locator('[aria-selected="true"] .slash-name').textContent()).toBe('/reset');
      await box(page).fill('/th');
      expect(await menu.locator('.slash-name').allTextContents()).toEqual(['/think <level>']);
      await box(page).press('Tab');
      expect(await box(page).inputValue()).toBe('/think ');
      expect(await menu.locator('.slash-name').allTextContents()).toEqual(['off', 'minimal', 'low', 'medium', 'high']);
      // Esc closes the menu (and stops nothing)
      await box(page).press('Escape');
      expect(await menu.count()).toBe(0);
      // /help runs from the menu: the keys and commands
      await box(page).fill('/he');
      await box(page).press('Enter');
      const sheet = page.getByTestId('help-sheet');
      await sheet.waitFor();
      expect(await sheet.textContent()).toContain('New chat');
      expect(await sheet.textContent()).toContain('/compact');
      await shot(page, `help-sheet-${theme}`);
      const sheetFails = await contrastFailures(page);
      expect(sheetFails, formatFailures(sheetFails)).toEqual([]);
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'detached' });
      expect(await box(page).inputValue()).toBe('');
      // ? outside a text field opens it too; in the box it is just a character
      await box(page).fill('why?');
      expect(await sheet.count()).toBe(0);
      await box(page).fill('');
      await page.locator('main.chat').click({ position: { x: 5, y: 5 } }).catch(() => undefined);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('Shift+?');
      await sheet.waitFor();
      await page.keyboard.press('Escape');
      // /new from the menu starts a new chat
      await send(page, 'a message before /new');
      await page.locator('[data-testid="assistant-message"][data-status="done"]').first().waitFor({ timeout: 20_000 });
      const before = await page.locator('main.chat').getAttribute('data-session-key');
      await box(page).fill('/ne');
      await box(page).press('Enter');
      await expect.poll(() => page.locator('main.chat').getAttribute('data-session-key')).not.toBe(before);
      expect(await page.getByTestId('user-message').count()).toBe(0);
      await page.close();
    }, 90_000);
  }

  it('Ctrl/Cmd+K runs actions: switch the theme, open settings; chats are never titled by their key', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await page.locator('main.chat[data-ready="true"]').waitFor();
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const labels = await dialog.locator('.palette-label').allTextContents();
    for (const l of labels) expect(l).not.toMatch(/^(chat|cli)-\d/);
    await page.keyboard.type('dark theme');
    await shot(page, 'palette-actions-light');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.keyboard.press('Control+k');
    await page.keyboard.type('light theme');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.keyboard.press('Control+k');
    await page.keyboard.type('open settings');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.evaluate(() => localStorage.removeItem('agentdesk.theme'));
    await page.close();
  }, 60_000);
});

describe('words, not jargon', () => {
  it('queue modes said as what they do; one thinking list without duplicates', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    const thinking = await page.getByLabel('Thinking', { exact: true }).locator('option').allTextContents();
    expect(thinking).toHaveLength(5);
    expect(new Set(thinking.map((t) => t.replace(' (default)', ''))).size).toBe(5);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const modes = await page.getByLabel('Queue mode').locator('option').allTextContents();
    expect(modes).toEqual([
      'Send it after the current reply',
      'Merge the messages sent meanwhile into one',
      'Steer the current reply with it',
      'Stop the current reply and send it',
    ]);
    const levels = await page.getByLabel('Default thinking').locator('option').allTextContents();
    expect(levels).toEqual(['Off', 'Minimal', 'Low', 'Medium', 'High']);
    await page.close();
  });
});

describe('settings that say what they did', () => {
  it('the run timeout refuses what it cannot use; a confirmation goes away by itself', async () => {
    // The page's clock is Playwright's (it runs as usual until fast-forwarded): the confirmation's OK_NOTE_MS (4 s) is
    // skipped, not waited for.
    const page = await rig.browser.newPage({ viewport: { ...SIZES[1] }, colorScheme: 'dark' });
    await page.clock.install();
    await openApp(rig, SIZES[1], 'dark', rig.web.url, page);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const field = page.getByLabel('Run timeout');
    const settingsFile = () => JSON.parse(readFileSync(join(rig.home, 'settings.json'), 'utf8')) as { defaults?: { timeoutSeconds?: number } };
    for (const bad of ['0.5', '-3', 'ten', '999999999']) {
      await field.fill(bad);
      await field.press('Enter');
      await expect.poll(() => page.getByTestId('timeout-problem').textContent()).toContain('Enter whole seconds from 1 to');
      expect(settingsFile().defaults?.timeoutSeconds).toBeUndefined();
    }
    await field.scrollIntoViewIfNeeded();
    await shot(page, 'run-timeout-problem-dark');
    await field.fill('90');
    await field.press('Enter');
    await expect.poll(() => settingsFile().defaults?.timeoutSeconds).toBe(90);
    expect(await page.getByTestId('timeout-problem').count()).toBe(0);
    const saved = page.getByTestId('note-defaults');
    await saved.waitFor();
    await page.clock.fastForward(OK_NOTE_MS);
    await saved.waitFor({ state: 'detached', timeout: 8000 });
    await page.close();
  }, 60_000);

  it.skipIf(!hasKeychain)('a removed key can be put back; the page says in which order keys are used (item 10)', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    // the order the engine uses (E6: last good, then least recently used, then the list), not "top to bottom"
    const order = await page.getByTestId('key-order').textContent();
    expect(order).toContain('the key that worked last is used first');
    expect(order).toContain('the one used longest ago first, then the order of this list');
    expect(order).not.toContain('top to bottom');
    await page.getByLabel('Key provider').selectOption('fake');
    await page.getByLabel('Key label').fill('undo-me');
    await page.getByLabel('API key', { exact: true }).fill('sk-ant-window-undo-key-0042');
    await page.getByRole('button', { name: 'Add key' }).click();
    const row = page.locator('[data-profile="fake:undo-me"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    const undo = page.getByTestId('key-undo');
    await undo.waitFor();
    await shot(page, 'key-undo-light');
    await undo.getByRole('button', { name: 'Undo' }).click();
    await row.waitFor();
    expect(await row.getByTestId('key-mask').textContent()).toBe('sk-ant…0042');
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.close();
  });
});

describe('providers', () => {
  it('a preset fills the form; a failed fetch says how to type the models; saved, then edited in place', async () => {
    // The app's socket through Playwright, so that the save's last request (app.info, after the saved row is shown)
    // can be held back: an Edit clicked on the new row meanwhile must not be undone when the save ends.
    let holdAppInfo = false;
    const page = await rig.browser.newPage({ viewport: { ...SIZES[0] }, colorScheme: 'light' });
    await page.routeWebSocket(/./, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        if (holdAppInfo && typeof m === 'string' && m.includes('"method":"app.info"')) {
          holdAppInfo = false;
          setTimeout(() => server.send(m), 1500);
        } else server.send(m);
      });
      server.onMessage((m) => ws.send(m));
    });
    await page.goto(rig.web.url);
    await page.locator('select[aria-label="Model"] option').first().waitFor({ state: 'attached', timeout: 20_000 });
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const form = page.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Provider preset').selectOption('ollama');
    expect(await form.getByLabel('Provider name').inputValue()).toBe('ollama');
    expect(await form.getByLabel('Base URL').inputValue()).toBe('http://127.0.0.1:11434/v1');
    // a server that does not list its models (404)
    await form.getByLabel('Base URL').fill(modelsUrl.replace(/\/v1$/, '/nothing-here'));
    await form.getByRole('button', { name: 'Fetch model list' }).click();
    const problem = page.getByTestId('fetch-problem');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/Could not list the models of .+ Type the model names into the box instead, one per line, exactly as Ollama names them \(for example llama3\.1:8b\)\./);
    await problem.scrollIntoViewIfNeeded();
    await shot(page, 'provider-fetch-failed-light');
    // one that does
    await form.getByLabel('Base URL').fill(modelsUrl);
    await form.getByRole('button', { name: 'Fetch model list' }).click();
    await expect.poll(() => form.getByLabel('Models').inputValue()).toBe('local-a\nlocal-b');
    holdAppInfo = true;
    await form.getByRole('button', { name: 'Save provider' }).click();
    const row = page.locator('[data-testid="endpoint-row"][data-provider="ollama"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('local-a, local-b');
    // edit in place, clicked while the save still waits for its last answer (held 1.5 s above): the save's end
    // leaves the edit form alone
    await row.getByRole('button', { name: 'Edit ollama' }).click();
    const edit = page.getByRole('form', { name: 'Edit ollama' });
    await edit.waitFor();
    // the save has ended once the form's buttons are enabled again (its form reset would have come just before)
    await expect
      .poll(() => page.locator('form.endpoint-form button[type="submit"]').isEnabled(), { message: 'the edit form, its save button enabled once the save has ended' })
      .toBe(true);
    expect(holdAppInfo, 'the save asked for app.info after its row was shown').toBe(false);
    expect(await edit.count(), 'the edit form is still open once the save has ended').toBe(1);
    expect(await edit.getByLabel('Models').inputValue()).toBe('local-a\nlocal-b');
    // drop a model
    expect(await edit.getByLabel('Provider name').isDisabled()).toBe(true);
    await edit.getByLabel('Models').fill('local-a');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => row.textContent()).not.toContain('local-b');
    expect(await row.textContent()).toContain('local-a');
    // the new model is offered
    await expect.poll(() => page.locator('select[aria-label="Model"] option[value="ollama/local-a"]').count()).toBe(1);
    // built-in providers only need a key
    await page.getByRole('form', { name: 'Add a provider' }).getByLabel('Provider preset').selectOption('anthropic');
    expect(await page.getByTestId('builtin-note').textContent()).toContain('Anthropic is built in: it needs only a key.');
    await row.getByRole('button', { name: 'Remove ollama' }).click();
    await row.waitFor({ state: 'detached' });
    await page.close();
  }, 60_000);

  it.skipIf(!hasKeychain)('the key goes in the same form', async () => {
    const page = await openApp(rig, SIZES[1], 'dark');
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const form = page.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Provider preset').selectOption('groq');
    await form.getByLabel('Base URL').fill(modelsUrl);
    await form.getByLabel('Provider API key').fill('gsk_window_test_key_000000000042');
    await form.getByLabel('Models').fill('llama-x');
    await shot(page, 'provider-form-dark');
    await form.getByRole('button', { name: 'Save provider' }).click();
    await page.locator('[data-profile="groq:default"]').waitFor();
    expect(await page.locator('[data-profile="groq:default"]').getByTestId('key-mask').textContent()).toMatch(/…0042$/);
    await page.locator('[data-profile="groq:default"]').getByRole('button', { name: 'Remove' }).click();
    await page.locator('[data-testid="endpoint-row"][data-provider="groq"]').getByRole('button', { name: 'Remove groq' }).click();
    await page.close();
  });
});
