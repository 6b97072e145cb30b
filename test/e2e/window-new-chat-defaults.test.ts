/**
 * Issue 18 item 2 in Chromium: Settings › "Defaults for new chats › Model" is the model a new chat uses — by the
 * New chat button, by Ctrl+N and by /new — not the model the current chat happens to use.
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
      // the old chat keeps its own model
      await page.close();
    }, 90_000);
  }
});
