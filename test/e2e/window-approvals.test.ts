/**
 * Issue 18 item 1 in the window: a pending approval survives a reload and a second window. The card is back after
 * a reload (1280 × 800 and 640 × 480) and answering it finishes the run; a window opened meanwhile shows the same
 * request, and an answer from either one closes it in both.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIZES, openApp, send, shot, startRig, type WindowRig } from './window-helpers.js';

let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('win-approvals');
}, 180_000);
afterAll(async () => rig?.close());

describe('a pending approval after a reload', () => {
  for (const size of SIZES) {
    it(`comes back at ${size.width}×${size.height}, and answering it finishes the run`, async () => {
      const file = `reload-${size.width}.txt`;
      rig.fake.enqueue({ toolCalls: [{ name: 'exec', arguments: { command: `echo hi > ${file}` } }] }, { text: `Wrote ${file}.` });
      const page = await openApp(rig, size, size.width === 640 ? 'dark' : 'light');
      await page.keyboard.press('Control+n');
      await send(page, `write ${file}`);
      await page.getByTestId('approval-card').waitFor({ timeout: 15_000 });
      await shot(page, `approval-${size.width === 640 ? 'dark' : 'light'}`);

      await page.reload();
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: 15_000 });
      expect(await card.getByTestId('approval-command').textContent()).toBe(`$ echo hi > ${file}`);
      expect(await page.getByTestId('approval-expiry').textContent()).toMatch(/If nobody answers by .+, it is refused/);
      await shot(page, `approval-after-reload-${size.width === 640 ? 'dark' : 'light'}`);
      await card.getByRole('button', { name: 'Allow once' }).click();
      const reply = page.getByTestId('assistant-message').last();
      await expect.poll(() => reply.getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
      expect(await reply.textContent()).toContain(`Wrote ${file}.`);
      expect(existsSync(join(rig.workspace, file))).toBe(true);
      await page.close();
    }, 60_000);
  }

  it('a second window shows the same request; an answer in one closes it in both', async () => {
    rig.fake.enqueue({ toolCalls: [{ name: 'exec', arguments: { command: 'echo two > two-windows.txt' } }] }, { text: 'Done in two windows.' });
    const a = await openApp(rig);
    await send(a, 'two windows');
    await a.getByTestId('approval-card').waitFor({ timeout: 15_000 });
    const b = await openApp(rig);
    const cardB = b.getByTestId('approval-card');
    await cardB.waitFor({ timeout: 15_000 });
    await cardB.getByRole('button', { name: 'Deny…' }).click();
    await cardB.getByLabel('Reason for denying (optional, the assistant sees it)').fill('wrong folder');
    await cardB.getByRole('button', { name: 'Deny', exact: true }).click();
    await expect.poll(() => a.getByTestId('approval-card').count(), { timeout: 10_000 }).toBe(0);
    const reply = a.getByTestId('assistant-message').last();
    await expect.poll(() => reply.getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    expect(JSON.stringify(rig.fake.requests.at(-1)?.body)).toContain('wrong folder');
    expect(existsSync(join(rig.workspace, 'two-windows.txt'))).toBe(false);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);
});
