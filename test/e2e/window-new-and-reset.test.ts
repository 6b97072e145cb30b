/**
 * Issue 18 items 2 and 4 in Chromium.
 * - Settings › "Defaults for new chats › Model" is the model a new chat uses — by the New chat button, by Ctrl+N
 *   and by /new — not the model the current chat happens to use.
 * - /reset keeps the earlier conversation as a chat of its own ("Before reset: …"): search finds it and opens it;
 *   the toast's Undo puts the chat back on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SIZES, openApp, send, shot, startRig, type WindowRig } from './window-helpers.js';

let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('win-defaults');
}, 180_000);
afterAll(async () => rig?.close());

const picker = (page: Page) => page.locator('select[aria-label="Model"]');
const sessionKey = (page: Page) => page.locator('main.chat').getAttribute('data-session-key');

/**
 * A new, empty chat, open (start-up may still be opening the last chat of an earlier test). data-ready is "false"
 * from the key press until the switch is done (the /new round trip, then the open): before that, the chat on
 * screen is the old one, and a user-message count of 0 proves nothing (the list may not have drawn its rows yet).
 */
async function freshChat(page: Page): Promise<void> {
  await page.keyboard.press('Control+n'); // start-up never opens the last chat over it (an empty chat is reused)
  await page.locator('main.chat[data-ready="true"]').waitFor();
  await page.getByRole('heading', { name: 'What should we work on?' }).waitFor();
  expect(await page.getByTestId('user-message').count()).toBe(0);
}

/** Sends `text` and waits for its reply to finish; returns the model id the provider was asked for. */
async function exchange(page: Page, text: string): Promise<string> {
  const done = page.locator('[data-testid="assistant-message"][data-status="done"]');
  const before = await done.count();
  await send(page, text);
  await expect.poll(() => done.count(), { timeout: 20_000 }).toBe(before + 1);
  const req = rig.fake.requests.filter((r) => JSON.stringify(r.body).includes(text)).at(-1);
  return (req!.body as { model: string }).model;
}

describe('the default model for new chats', () => {
  for (const [size, theme, how] of [
    [SIZES[0], 'light', 'New chat button'],
    [SIZES[0], 'light', 'Ctrl+N'],
    [SIZES[1], 'dark', '/new'],
  ] as const) {
    it(`is used by a chat started with ${how} (${size.width}×${size.height}, ${theme})`, async () => {
      const page = await openApp(rig, size, theme);
      await page.locator('main.chat[data-ready="true"]').waitFor();
      // the default: claude-other
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByLabel('Default model').selectOption('fake/claude-other');
      await page.getByTestId('note-defaults').waitFor();
      await page.getByRole('button', { name: 'Back to chat' }).click();
      await freshChat(page);
      // this chat: claude-fake, chosen in the picker
      await picker(page).selectOption('fake/claude-fake');
      expect(await exchange(page, `in the old chat (${how})`)).toBe('claude-fake');
      const old = await sessionKey(page);
      if (how === 'New chat button') {
        if (size.width < 800) await page.getByRole('button', { name: 'Show chats' }).click();
        await page.getByRole('button', { name: /New chat/ }).first().click();
      } else if (how === 'Ctrl+N') {
        await page.keyboard.press('Control+n');
      } else {
        await page.getByRole('textbox', { name: 'Message' }).fill('/new');
        await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      }
      await expect.poll(() => sessionKey(page)).not.toBe(old);
      await page.locator('main.chat[data-ready="true"]').waitFor();
      await expect.poll(() => picker(page).inputValue()).toBe('fake/claude-other');
      await shot(page, `new-chat-default-model-${theme}`);
      expect(await exchange(page, `in the new chat (${how})`)).toBe('claude-other');
      await page.close();
    }, 90_000);
  }
});

const items = (page: Page) => page.getByTestId('session-item');
const openList = async (page: Page) => {
  if ((page.viewportSize()?.width ?? 1280) < 800 && !(await page.getByLabel('Search chats').isVisible())) await page.getByRole('button', { name: 'Show chats' }).click();
};

describe('/reset', () => {
  for (const [size, theme] of [
    [SIZES[0], 'light'],
    [SIZES[1], 'dark'],
  ] as const) {
    it(`keeps the earlier conversation: search finds and opens it (${size.width}×${size.height}, ${theme})`, async () => {
      const page = await openApp(rig, size, theme);
      await page.locator('main.chat[data-ready="true"]').waitFor();
      await freshChat(page);
      const word = `zebra${size.width}`;
      await exchange(page, `tell me about the ${word} crossing`);
      const key = await sessionKey(page);
      await page.getByRole('textbox', { name: 'Message' }).fill('/reset');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      const toast = page.getByTestId('undo-toast');
      await toast.waitFor();
      expect(await toast.textContent()).toMatch(/Started over\. The earlier conversation is kept as “Before reset: .+”\./);
      await expect.poll(() => page.getByTestId('user-message').count()).toBe(0);
      expect(await sessionKey(page)).toBe(key);
      await shot(page, `reset-kept-${theme}`);
      // search finds the old conversation and opens it
      await openList(page);
      await page.getByLabel('Search chats').fill(word);
      await expect.poll(() => items(page).count()).toBe(1);
      const hit = items(page).first();
      expect(await hit.getByTestId('session-title').textContent()).toMatch(/^Before reset: /);
      await shot(page, `reset-search-${theme}`);
      await hit.getByTestId('session-title').click();
      await page.getByTestId('user-message').filter({ hasText: `the ${word} crossing` }).waitFor();
      expect(await sessionKey(page)).not.toBe(key);
      await page.close();
    }, 90_000);
  }

  it('Undo puts the chat back on its earlier conversation', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await page.locator('main.chat[data-ready="true"]').waitFor();
    await freshChat(page);
    await exchange(page, 'a walrus question');
    const key = await sessionKey(page);
    await page.getByRole('textbox', { name: 'Message' }).fill('/reset');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.getByTestId('undo-toast').getByRole('button', { name: 'Undo' }).click();
    await page.getByTestId('user-message').filter({ hasText: 'a walrus question' }).waitFor();
    expect(await sessionKey(page)).toBe(key);
    await expect.poll(() => items(page).filter({ hasText: 'Before reset:' }).filter({ hasText: 'walrus' }).count()).toBe(0);
    // the chat goes on where it was
    expect(await exchange(page, 'and another walrus question')).toBe('claude-other');
    await page.close();
  }, 90_000);
});
