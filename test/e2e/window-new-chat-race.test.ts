/**
 * Issue 18 item 8b: New chat, then a quick send, must show the exchange in the pane. With 150 ms of latency on every
 * WebSocket frame (each way) the message used to go to the chat that was still open (or its user message was wiped
 * by the new chat's history arriving after it): the run completed, the sidebar listed it, the pane stayed empty.
 * Ten rounds, alternating the button and Ctrl+N, each sent the moment the new chat was asked for.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type WindowRig } from './window-helpers.js';

let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('win-race');
}, 180_000);
afterAll(async () => rig?.close());

async function slowPage(latencyMs: number): Promise<Page> {
  const ctx = await rig.browser.newContext({ viewport: { width: 1280, height: 800 } });
  await ctx.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => void setTimeout(() => server.send(m), latencyMs));
    server.onMessage((m) => void setTimeout(() => ws.send(m), latencyMs));
  });
  const page = await ctx.newPage();
  await page.goto(rig.web.url);
  await page.locator('select[aria-label="Model"] option').first().waitFor({ state: 'attached', timeout: 20_000 });
  return page;
}

describe('New chat then send, on a slow connection', () => {
  it('shows every first exchange in the pane (10 rounds)', async () => {
    rig.fake.setDefault({ text: 'Reply here.', chunkSize: 4 });
    const page = await slowPage(150);
    const box = page.getByRole('textbox', { name: 'Message' });
    for (let i = 0; i < 10; i++) {
      if (i % 2 === 0) await page.getByRole('button', { name: 'New chat', exact: true }).click();
      else await page.keyboard.press('Control+n');
      await box.fill(`round ${i}`);
      await box.press('Enter');
      // the run ends (the sidebar lists the chat), then the pane must hold exactly this exchange
      await page.getByTestId('session-title').filter({ hasText: `round ${i}` }).waitFor({ timeout: 15_000 });
      await expect.poll(() => page.locator('[data-testid="user-message"] .msg-user-bubble').allTextContents(), { timeout: 15_000, message: `round ${i}` }).toEqual([`round ${i}`]);
      const reply = page.getByTestId('assistant-message');
      await expect.poll(() => reply.count(), { timeout: 15_000, message: `round ${i}` }).toBe(1);
      await expect.poll(() => reply.getAttribute('data-status'), { timeout: 15_000, message: `round ${i}` }).toBe('done');
      expect(await reply.textContent()).toContain('Reply here.');
      // the open chat in the sidebar is the one that holds the exchange
      await expect.poll(() => page.locator('.session-active [data-testid="session-title"]').textContent(), { timeout: 10_000 }).toBe(`round ${i}`);
    }
  }, 180_000);
});
