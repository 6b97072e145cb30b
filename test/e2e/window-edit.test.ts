/**
 * Issue 18 items 8 and 15 in Chromium.
 * - Edit a sent message: the edited text is sent and the chat goes on from there; the conversation it leaves stays
 *   in the chat list ("Earlier version: …") and opens with its old messages.
 * - Regenerate a reply (the old version kept the same way); Copy a message.
 * - Retry re-runs a failed turn in place (one user message, no second turn, no live buttons left on a failed
 *   turn); Switch model retries it on the model picked.
 * Shots at 1280 × 800 (light) and 640 × 480 (dark) under test-results/window/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SIZES, openApp, send, shot, startRig, type WindowRig } from './window-helpers.js';

let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('win-edit');
}, 180_000);
afterAll(async () => rig?.close());

const users = (page: Page) => page.getByTestId('user-message');
const replies = (page: Page) => page.getByTestId('assistant-message');
const done = (page: Page) => page.locator('[data-testid="assistant-message"][data-status="done"]');
const items = (page: Page) => page.getByTestId('session-item');
const lastRequestText = () => JSON.stringify(rig.fake.requests.at(-1)!.body);

async function freshChat(page: Page): Promise<void> {
  await page.locator('main.chat[data-ready="true"]').waitFor();
  await page.keyboard.press('Control+n');
  await page.locator('main.chat[data-ready="true"]').waitFor();
  await expect.poll(() => users(page).count()).toBe(0);
}

async function exchange(page: Page, text: string, reply: string): Promise<void> {
  rig.fake.enqueue({ text: reply });
  const before = await done(page).count();
  await send(page, text);
  await expect.poll(() => done(page).count(), { timeout: 20_000 }).toBe(before + 1);
}

describe('edit, regenerate, copy', () => {
  for (const [size, theme] of [
    [SIZES[0], 'light'],
    [SIZES[1], 'dark'],
  ] as const) {
    it(`Edit on a sent message branches the chat; the old version stays reachable (${size.width}×${size.height}, ${theme})`, async () => {
      const page = await openApp(rig, size, theme);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await freshChat(page);
      const tag = `${size.width}`;
      await exchange(page, `tell me about otters ${tag}`, `Otters ${tag} swim.`);
      await exchange(page, `and their dens ${tag}`, `Holts ${tag}.`);
      const key = await page.locator('main.chat').getAttribute('data-session-key');
      // Copy
      await users(page).first().getByRole('button', { name: 'Copy text' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`tell me about otters ${tag}`);
      // Edit the first message
      await users(page).first().getByTestId('edit-message').click();
      const box = page.getByRole('textbox', { name: 'Edited text' });
      await box.waitFor();
      await shot(page, `edit-message-${theme}`);
      await box.fill(`tell me about beavers ${tag}`);
      rig.fake.enqueue({ text: `Beavers ${tag} build dams.` });
      await box.press('Enter');
      await done(page).filter({ hasText: `Beavers ${tag} build dams.` }).waitFor({ timeout: 20_000 });
      expect(await users(page).allTextContents()).toEqual([expect.stringContaining(`tell me about beavers ${tag}`)]);
      expect(await replies(page).count()).toBe(1);
      expect(await page.locator('main.chat').getAttribute('data-session-key')).toBe(key);
      // the model saw the edited message and nothing after the old one
      expect(lastRequestText()).toContain(`beavers ${tag}`);
      expect(lastRequestText()).not.toContain(`otters ${tag}`);
      await shot(page, `edited-${theme}`);
      // the old version is a chat of its own, with its messages
      if (size.width < 800) await page.getByRole('button', { name: 'Show chats' }).click();
      // the chat's title follows the first message of the branch shown (it was never renamed)
      await expect.poll(() => items(page).and(page.locator(`[data-session-key="${key}"]`)).getByTestId('session-title').textContent()).toBe(`tell me about beavers ${tag}`);
      const earlier = items(page).filter({ hasText: `Earlier version: tell me about otters ${tag}` });
      await earlier.waitFor();
      await earlier.getByTestId('session-title').click();
      await done(page).filter({ hasText: `Holts ${tag}.` }).waitFor();
      expect(await users(page).count()).toBe(2);
      await page.close();
    }, 90_000);
  }

  it('a chat the person renamed keeps its name when its first message is edited', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await freshChat(page);
    await exchange(page, 'first words about owls', 'Owls hoot.');
    const key = await page.locator('main.chat').getAttribute('data-session-key');
    const row = items(page).and(page.locator(`[data-session-key="${key}"]`));
    await expect.poll(() => row.getByTestId('session-title').textContent()).toBe('first words about owls');
    await row.getByRole('button', { name: /Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    await page.getByLabel('Chat title').fill('My owl notes');
    await page.getByLabel('Chat title').press('Enter');
    await expect.poll(() => row.getByTestId('session-title').textContent()).toBe('My owl notes');
    await users(page).first().getByTestId('edit-message').click();
    const box = page.getByRole('textbox', { name: 'Edited text' });
    await box.fill('first words about larks');
    rig.fake.enqueue({ text: 'Larks sing.' });
    await box.press('Enter');
    await done(page).filter({ hasText: 'Larks sing.' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => items(page).filter({ hasText: 'Earlier version: My owl notes' }).count()).toBe(1);
    expect(await row.getByTestId('session-title').textContent()).toBe('My owl notes');
    await page.close();
  }, 60_000);

  it('Regenerate asks for the reply again in place; the old reply stays in the earlier version', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await freshChat(page);
    await exchange(page, 'a haiku about rain', 'Rain, first version.');
    rig.fake.enqueue({ text: 'Rain, second version.' });
    await replies(page).last().getByTestId('regenerate').click();
    await done(page).filter({ hasText: 'Rain, second version.' }).waitFor({ timeout: 20_000 });
    expect(await users(page).count()).toBe(1);
    expect(await replies(page).count()).toBe(1);
    await expect.poll(() => items(page).filter({ hasText: 'Earlier version: a haiku about rain' }).count()).toBe(1);
    await page.close();
  }, 60_000);
});

describe('a failed reply', () => {
  it('Retry re-runs the same turn in place (no second turn, no old buttons left)', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await freshChat(page);
    rig.fake.enqueue({ fault: { kind: 'http', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: something the fake refuses once' } } } });
    await send(page, 'will fail once');
    const failed = page.locator('[data-testid="assistant-message"][data-status="error"]');
    await failed.waitFor({ timeout: 20_000 });
    await shot(page, 'failed-turn-light');
    rig.fake.enqueue({ text: 'Worked the second time.' });
    await failed.getByRole('button', { name: 'Retry' }).click();
    await done(page).filter({ hasText: 'Worked the second time.' }).waitFor({ timeout: 20_000 });
    expect(await users(page).count()).toBe(1);
    expect(await replies(page).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    // after a reload: still one exchange, no error
    await page.reload();
    await done(page).filter({ hasText: 'Worked the second time.' }).waitFor({ timeout: 20_000 });
    expect(await users(page).count()).toBe(1);
    expect(await page.locator('[data-testid="assistant-message"][data-status="error"]').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('Switch model retries the turn on the model picked', async () => {
    const page = await openApp(rig, SIZES[1], 'dark');
    await freshChat(page);
    rig.fake.enqueue({ fault: { kind: 'not_found' } });
    await send(page, 'try another model');
    const failed = page.locator('[data-testid="assistant-message"][data-status="error"]');
    await failed.waitFor({ timeout: 20_000 });
    await shot(page, 'failed-turn-dark');
    rig.fake.enqueue({ text: 'Answered by the other model.' });
    await failed.getByRole('button', { name: 'Switch model' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await page.keyboard.type('claude-other');
    await page.keyboard.press('Enter');
    await done(page).filter({ hasText: 'Answered by the other model.' }).waitFor({ timeout: 20_000 });
    expect((rig.fake.requests.at(-1)!.body as { model: string }).model).toBe('claude-other');
    expect(await users(page).count()).toBe(1);
    expect(await replies(page).count()).toBe(1);
    await page.close();
  }, 60_000);
});
