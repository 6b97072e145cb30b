/**
 * X3/X4 in the window, in Debian Chromium against the real gateway (`out/main/web.js`), the real Anthropic SDK and
 * the fake server (issue 19 "Done when"): an image pasted into the composer is sent — it shows in the chat and
 * reaches the fake as an image block; `@` completes a workspace file and attaches it; the Usage page in Settings
 * shows what the chat cost; 80 % of a budget shows a warning above the message box; a budget stop shows its actions ("Raise budget", "Open settings") and raising it lets
 * the chat go on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { flatImage } from '../support/images.js';
import { ensureBuilt, makeFolders, offlineEnv, RESULTS, startWebServer, type WebServer } from './helpers.js';
import { launchChromium } from './browser.js';

let fake: FakeProvider;
let web: WebServer;
let browser: Browser;
const USAGE = { input: 1000, output: 100 };

beforeAll(async () => {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  fake = await startFakeAnthropic();
  const folders = makeFolders('web-attach');
  writeFileSync(
    join(folders.home, 'config.json'),
    JSON.stringify({
      providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake', input: ['text', 'image'], cost: { input: 3, output: 15 } }] } },
      authProfiles: [{ id: 'fake:e2e', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/claude-fake' } },
    }),
  );
  [browser, web] = await Promise.all([
    launchChromium(),
    startWebServer(folders.home, folders.workspace, offlineEnv({ FAKE_KEY: 'sk-ant-e2e-attach-0019' })),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await fake?.close();
});

describe('attachments, usage and budgets in the window', () => {
  it('paste an image, @-mention a file, see the cost, stop at a budget and raise it', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await page.goto(web.url);
    await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });

    // 1. Paste an image into the message box: a chip shows; send; the chat shows the picture; the fake got it.
    const png = await flatImage(64, 48, 'png');
    await page.getByLabel('Message').focus();
    await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
      document.querySelector('textarea[aria-label="Message"]')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, png.toString('base64'));
    const chip = page.getByTestId('attach-tray').getByTestId('attachment-chip');
    await chip.waitFor();
    expect(await chip.textContent()).toContain('64×48');
    await page.screenshot({ path: join(RESULTS, 'attach-tray.png') });
    fake.enqueue({ text: 'A blue rectangle.', usage: USAGE });
    await page.getByLabel('Message').fill('What is this?');
    await page.getByRole('button', { name: 'Send' }).click();
    const first = page.getByTestId('assistant-message').first();
    await expect.poll(() => first.getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    const shown = page.getByTestId('user-message').first().locator('img.msg-image');
    await shown.waitFor();
    expect(await shown.getAttribute('src')).toBe(`data:image/png;base64,${png.toString('base64')}`);
    const sent = fake.requests.at(-1)!.body.messages.at(-1).content;
    expect(sent[0]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } });
    expect(sent[1]).toEqual({ type: 'text', text: 'What is this?' });
    expect(await page.getByTestId('attach-tray').count()).toBe(0); // the tray emptied with the send

    // 2. `@` completes a workspace path; picking it attaches the file's text.
    await page.getByLabel('Message').pressSequentially('Read @not');
    const menu = page.getByTestId('mention-menu');
    await menu.getByText('notes.txt').waitFor();
    await page.screenshot({ path: join(RESULTS, 'mention-menu.png') });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByLabel('Message').inputValue()).toBe('Read @notes.txt ');
    await page.getByTestId('attach-tray').getByText('@notes.txt').waitFor();
    fake.enqueue({ text: 'It says to remember the milk.', usage: USAGE });
    await page.getByRole('button', { name: 'Send' }).click();
    const second = page.getByTestId('assistant-message').nth(1);
    await expect.poll(() => second.getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    expect(fake.requests.at(-1)!.body.messages.at(-1).content.at(-1).text).toBe(
      '<attached_file name="notes.txt" type="text/plain">\nremember the milk\n\n</attached_file>\n\nRead @notes.txt',
    );

    // 3. The chat's cost: in the header, and on the Usage page in Settings (two calls at $0.0045).
    await expect.poll(() => page.locator('.chat-cost-header').textContent(), { timeout: 10_000 }).toBe('$0.0090');
    await page.getByRole('button', { name: 'Settings' }).click();
    const usage = page.locator('#settings-usage');
    await usage.scrollIntoViewIfNeeded();
    await expect.poll(() => usage.getByTestId('usage-totals').textContent()).toContain('today: $0.0090');
    expect(await usage.getByTestId('usage-by-chat').textContent()).toContain('What is this?');
    expect(await usage.getByTestId('usage-by-model').textContent()).toContain('fake/claude-fake');

    // 4. A per-chat budget 81 % spent: the next message warns above the message box, and the run goes on.
    await usage.getByTestId('budget-perChatUsd').fill('0.011');
    await usage.getByRole('button', { name: 'Save budgets' }).click();
    await usage.getByText('Budgets saved.').waitFor();
    await page.getByRole('button', { name: 'Back to chat' }).click();
    fake.enqueue({ text: 'Still within it.', usage: USAGE });
    await page.getByLabel('Message').fill('Still fine?');
    await page.getByRole('button', { name: 'Send' }).click();
    const warned = page.getByTestId('assistant-message').nth(2);
    await expect.poll(() => warned.getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    const warning = page.getByTestId('budget-warning');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('Budget warning: 81 % of agent.budget.perChatUsd ($0.0110) used: this chat has spent $0.0090.');
    await page.screenshot({ path: join(RESULTS, 'budget-warning.png') });
    await expect.poll(() => page.locator('.chat-cost-header').textContent(), { timeout: 10_000 }).toBe('$0.01'); // cents from a cent on

    // 5. A per-chat budget below what the chat spent: the next message stops before any request, with its actions.
    await warning.getByRole('button', { name: 'Open settings' }).click();
    await usage.getByTestId('budget-perChatUsd').fill('0.005');
    await usage.getByRole('button', { name: 'Save budgets' }).click();
    await usage.getByText('Budgets saved.').waitFor();
    await page.screenshot({ path: join(RESULTS, 'usage-settings.png'), fullPage: false });
    await page.getByRole('button', { name: 'Back to chat' }).click();
    const before = fake.requests.length;
    await page.getByLabel('Message').fill('One more?');
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await page.getByTestId('budget-warning').count()).toBe(0); // a budget changed: the old warning is gone
    const third = page.getByTestId('assistant-message').nth(3);
    await expect.poll(() => third.getAttribute('data-status'), { timeout: 15_000 }).toBe('error');
    expect(await third.locator('.run-error-line').textContent()).toBe(
      'Budget reached: agent.budget.perChatUsd is $0.0050 and this chat has spent $0.0135; the model was not called. Raise the budget (Settings › Usage or config.json) to go on.',
    );
    expect(fake.requests.length).toBe(before);
    await third.getByRole('button', { name: 'Open settings' }).waitFor();
    await page.screenshot({ path: join(RESULTS, 'budget-error.png') });

    // "Raise budget": a field in place, then the chat goes on.
    await third.getByRole('button', { name: 'Raise budget' }).click();
    await third.getByLabel('New budget per chat in USD').fill('1');
    await third.getByRole('button', { name: 'Save' }).click();
    fake.enqueue({ text: 'Going on.', usage: USAGE });
    await page.getByLabel('Message').fill('Now?');
    await page.getByRole('button', { name: 'Send' }).click();
    const fourth = page.getByTestId('assistant-message').nth(4);
    await expect.poll(() => fourth.getAttribute('data-status'), { timeout: 15_000 }).toBe('done');

    // "Open settings" lands on the Usage section.
    await third.getByRole('button', { name: 'Open settings' }).click();
    await expect.poll(() => page.getByTestId('budget-perChatUsd').inputValue()).toBe('1');
    await page.close();
  }, 120_000);

  it('in a narrow window and the dark theme the tray and the image stay readable', async () => {
    const page = await browser.newPage({ viewport: { width: 640, height: 480 }, colorScheme: 'dark' });
    await page.goto(web.url);
    await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });
    const png = await flatImage(1200, 900, 'jpeg');
    await page.getByTestId('attach-input').setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: png });
    await page.getByTestId('attach-tray').getByText('photo.jpg').waitFor();
    // A file dropped on the message box joins the tray too.
    const gif = await flatImage(20, 10, 'gif');
    await page.evaluate(async (b64) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'dropped.gif', { type: 'image/gif' }));
      const form = document.querySelector('form.composer')!;
      form.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      form.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, gif.toString('base64'));
    await page.getByTestId('attach-tray').getByText('dropped.gif').waitFor();
    expect(await page.getByTestId('attach-tray').getByTestId('attachment-chip').count()).toBe(2);
    await page.getByLabel('Message').pressSequentially('@src/');
    await page.getByTestId('mention-menu').getByText('src/index.js').waitFor();
    // Down past the folder itself (Enter on it would attach its listing). The answer to an earlier keystroke's query
    // may still replace the list under the key press: press again until the file is the one highlighted.
    const selected = page.getByTestId('mention-menu').getByRole('option', { selected: true });
    await expect
      .poll(
        async () => {
          const now = await selected.textContent();
          if (now !== 'src/index.js') await page.keyboard.press('ArrowDown');
          return now;
        },
        { timeout: 5000 },
      )
      .toBe('src/index.js');
    await page.screenshot({ path: join(RESULTS, 'attach-narrow-dark-menu.png') });
    await page.keyboard.press('Enter');
    await page.getByTestId('attach-tray').getByText('@src/index.js').waitFor();
    const box = await page.getByTestId('attach-tray').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(640);
    await page.screenshot({ path: join(RESULTS, 'attach-narrow-dark.png') });
    await page.close();
  }, 60_000);
});
