/**
 * Issue 18 item 18 in Chromium: a 20 000-message chat. It opens on its last answer; the earlier part loads by
 * itself, so scrolling up and Ctrl+Home reach the first message (≤ 2 s after the chat is open, the earlier part
 * still loading when the key is pressed); find-in-chat (Ctrl+F) jumps to matches anywhere, Enter to the next.
 * The open time is logged here and held to its goal in `npm run bench:ui` (a timing under the full suite's load
 * is not a measurement).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Message } from '../../main/engine/messages.js';
import { SessionStore } from '../../main/sessions/store.js';
import { SIZES, openApp, shot, startRig, type WindowRig } from './window-helpers.js';

const N = 20_000;
let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('win-long', {
    before: async (home) => {
      const store = new SessionStore(join(home, 'sessions'));
      const s = await store.resolve('long-chat', { model: 'fake/claude-fake' });
      await store.update('long-chat', { title: 'A very long chat' });
      const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, total: 20 };
      const out: Message[] = [];
      for (let i = 0; i < N; i += 2) {
        out.push({ role: 'user', content: `Question ${i}: how does part ${i % 97} work?`, timestamp: i });
        const text = i + 2 >= N ? 'The very last answer.' : `Answer ${i}: it reads the input and writes out-${i}.${i === 5000 ? ' The word pelican is here.' : ''}`;
        out.push({ role: 'assistant', content: [{ type: 'text', text }], provider: 'fake', model: 'claude-fake', api: 'anthropic', usage, stopReason: 'stop', timestamp: i + 1 });
      }
      await store.append(s.sessionId, ...out);
    },
  });
}, 180_000);
afterAll(async () => rig?.close());

const firstMessage = (page: Page) => page.getByTestId('user-message').filter({ hasText: 'Question 0: how does part 0 work?' });

async function openLong(page: Page): Promise<void> {
  await page.locator('main.chat[data-ready="true"]').waitFor();
  if ((await page.locator('main.chat').getAttribute('data-session-key')) !== 'long-chat') {
    if ((page.viewportSize()?.width ?? 1280) < 800) await page.getByRole('button', { name: 'Show chats' }).click();
    await page.getByTestId('session-item').filter({ hasText: 'A very long chat' }).getByTestId('session-title').click();
  }
  await page.getByText('The very last answer.').waitFor({ timeout: 20_000 });
}

describe(`a ${N.toLocaleString('en-US')}-message chat`, () => {
  for (const [size, theme] of [
    [SIZES[0], 'light'],
    [SIZES[1], 'dark'],
  ] as const) {
    it(`opens on its last answer; Ctrl+Home reaches the first message (${size.width}×${size.height}, ${theme})`, async () => {
      const page = await openApp(rig, size, theme);
      const t0 = Date.now();
      await openLong(page);
      console.log(`${N} messages: last answer on screen ${Date.now() - t0} ms after the app's models loaded (see bench:ui for the figure)`);
      await page.getByRole('textbox', { name: 'Message' }).focus();
      const t1 = Date.now();
      await page.keyboard.press('Control+Home');
      await firstMessage(page).waitFor({ timeout: 10_000 });
      const ms = Date.now() - t1;
      // the figure (≤ 2 s) is proven by `npm run bench:ui` on a quiet machine; here, beside the rest of the suite on
      // 2 cores, it is printed, and the key must work (10 s above)
      console.log(`Ctrl+Home → first message: ${ms} ms (see bench:ui for the figure)`);
      expect((await firstMessage(page).boundingBox())!.y).toBeGreaterThanOrEqual(0);
      await shot(page, `long-chat-first-message-${theme}`);
      // Ctrl+End goes back to the last answer
      await page.keyboard.press('Control+End');
      await page.getByText('The very last answer.').waitFor();
      await page.close();
    }, 90_000);
  }

  it('scrolling up reaches the first message (the earlier part loads by itself)', async () => {
    const page = await openApp(rig, SIZES[0], 'light');
    await openLong(page);
    await expect.poll(() => page.getByTestId('earlier-bar').count(), { timeout: 10_000 }).toBe(0);
    const list = page.getByRole('log', { name: 'Conversation' });
    // the scrollbar's way: drag to the top (as a person would, rather than 20 000 wheel turns)
    await list.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect.poll(async () => { await list.evaluate((el) => el.scrollTo({ top: 0 })); return firstMessage(page).count(); }, { timeout: 10_000 }).toBe(1);
    await page.close();
  }, 60_000);

  it('Ctrl+F finds a match far up the chat and jumps to it; Enter goes to the next', async () => {
    const page = await openApp(rig, SIZES[1], 'dark');
    await openLong(page);
    await page.keyboard.press('Control+f');
    const find = page.getByRole('textbox', { name: 'Find in this chat' });
    await find.waitFor();
    await find.fill('pelican');
    const found = page.locator('[data-found="true"]');
    await found.filter({ hasText: 'The word pelican is here.' }).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('find-count').textContent()).toBe('1 of 1');
    await shot(page, 'find-in-chat-dark');
    await find.fill('Question 10:');
    await found.filter({ hasText: 'Question 10: how does part 10 work?' }).waitFor({ timeout: 10_000 });
    await find.fill('part 96 work');
    const count = await page.getByTestId('find-count').textContent();
    expect(count).toMatch(/^\d+ of (\d+)$/);
    const total = Number(count!.split(' of ')[1]);
    expect(total).toBe(103); // the even i below 20 000 with i % 97 = 96: 96, 290, …, 19 884
    await find.press('Enter'); // from the last match, Enter wraps to the first
    await found.filter({ hasText: 'Question 96: how does part 96 work?' }).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('find-count').textContent()).toBe(`1 of ${total}`);
    await find.press('Escape');
    await expect.poll(() => page.getByTestId('find-bar').count()).toBe(0);
    await page.close();
  }, 60_000);
});
