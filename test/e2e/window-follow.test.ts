/**
 * The conversation follows a reply to its end (Debian Chromium, `out/main/web.js`, the real Anthropic SDK against
 * the fake server), also on a slow machine: the page's CPU is throttled 6× (Chrome DevTools Protocol) and replies
 * are tall — they grow by many small pieces, and when one ends it moves from the live footer into the virtualised
 * list. After every turn the end of the conversation is in view: the last reply's last line is on screen. A reader
 * who scrolls up while a reply streams is left where they are until they go back to the end.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeLayout, layoutProblems } from './layout-check.js';
import { shot, startRig, type WindowRig } from './window-helpers.js';

let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('window-follow');
}, 180_000);
afterAll(async () => rig?.close());

/** Where the end of the conversation is: the list's scroll, and whether the last reply's last line is on screen. */
const endState = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector('[aria-label="Conversation"]') as HTMLElement | null;
    const replies = document.querySelectorAll('[data-testid="assistant-message"]');
    const last = replies[replies.length - 1] as HTMLElement | undefined;
    if (!list || !last) return { gap: -1, lastLineInView: false, text: '' };
    const box = list.getBoundingClientRect();
    const r = last.getBoundingClientRect();
    return {
      gap: Math.round(list.scrollHeight - list.scrollTop - list.clientHeight),
      lastLineInView: r.bottom <= box.bottom + 1 && r.bottom > box.top,
      text: (last.textContent ?? '').slice(-30),
    };
  });

describe('the conversation follows the reply', () => {
  it('after each tall reply on a 6× slower CPU, its last line is on screen', async () => {
    const page = await rig.browser.newPage({ viewport: { width: 900, height: 600 } });
    const cdp = await page.context().newCDPSession(page);
    await page.goto(rig.web.url);
    await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });
    await page.locator('main.chat[data-ready="true"]').waitFor();
    if ((await page.getByLabel('Model').inputValue()) !== 'fake/claude-fake') await page.getByLabel('Model').selectOption('fake/claude-fake');
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
    for (let turn = 1; turn <= 5; turn++) {
      const tail = `End of reply ${turn}.`;
      rig.fake.enqueue({ text: `${'A line of the reply that wraps across the width of the list. '.repeat(30 + turn * 7)}\n\n${tail}`, chunkSize: 40, delayMs: 2 });
      await page.getByLabel('Message').fill(`Question ${turn}`);
      await page.getByLabel('Message').press('Enter');
      const reply = page.locator('[data-testid="assistant-message"][data-status="done"]').filter({ hasText: tail });
      await reply.waitFor({ timeout: 30_000 });
      await expect.poll(async () => JSON.stringify(await endState(page)), { timeout: 5_000, message: `turn ${turn}: the end is not in view` }).toMatch(/"lastLineInView":true/);
    }
    await shot(page, 'follow-slow-cpu');
    // 900 px wide with the context meter and the cost on: the top bar still fits (the settings button was cut off)
    expect(describeLayout(await layoutProblems(page))).toEqual([]);

    // The reader scrolls up while a reply streams: the list stays where they left it, through the reply's end.
    rig.fake.enqueue({ text: `${'A slower reply, read from its start. '.repeat(120)}\n\nEnd of the slow reply.`, chunkSize: 20, delayMs: 25 });
    await page.getByLabel('Message').fill('One more');
    await page.getByLabel('Message').press('Enter');
    await page.getByText('A slower reply, read from its start.').first().waitFor();
    await page.getByRole('log', { name: 'Conversation' }).hover();
    await page.mouse.wheel(0, -1500);
    await expect.poll(async () => (await endState(page)).gap, { timeout: 5_000 }).toBeGreaterThan(600);
    const left = await page.getByRole('log', { name: 'Conversation' }).evaluate((el) => el.scrollTop);
    // ended: the composer offers Send again (the reply itself may be out of the drawn range, up to where the reader is)
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached', timeout: 60_000 });
    await page.waitForTimeout(300); // the reply moves into the list — the moment that used to pull the list along
    const after = await endState(page);
    expect(after.lastLineInView).toBe(false);
    expect(Math.abs((await page.getByRole('log', { name: 'Conversation' }).evaluate((el) => el.scrollTop)) - left)).toBeLessThan(50);
    // End (Ctrl+End) follows again.
    await page.getByLabel('Message').focus();
    await page.keyboard.press('Control+End');
    await expect.poll(async () => (await endState(page)).lastLineInView, { timeout: 5_000 }).toBe(true);
    await page.close();
  }, 180_000);
});
