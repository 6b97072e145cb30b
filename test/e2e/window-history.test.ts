/**
 * Issue 18 item 3 in Chromium: history after a reload reads like the live reply. A reply that succeeded after a
 * 429 on the first key (the second key answered) shows no error and no Retry after a reload, and keeps its model
 * label, its tokens and its cost, and the line that said the key was switched; a tool row keeps how long it ran. At 1280 × 800 (light) and 640 × 480 (dark).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeLayout, layoutProblems } from './layout-check.js';
import { SIZES, openApp, send, shot, startRig, type WindowRig } from './window-helpers.js';

let rig: WindowRig;
beforeAll(async () => {
  rig = await startRig('win-history', {
    env: { FAKE_KEY_2: 'sk-ant-window-key-0002' },
    config: (fake) => ({
      // a model id with a list price, so the reply shows a cost
      providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-sonnet-4-5' }] } },
      authProfiles: [
        { id: 'fake:work', provider: 'fake', apiKeyEnv: 'FAKE_KEY' },
        { id: 'fake:personal', provider: 'fake', apiKeyEnv: 'FAKE_KEY_2' },
      ],
      agent: { model: { primary: 'fake/claude-sonnet-4-5' } },
    }),
  });
}, 180_000);
afterAll(async () => rig?.close());

const reply = (page: Page, text: string) => page.locator('[data-testid="assistant-message"]').filter({ hasText: text });

describe('a reply after a reload', () => {
  for (const [size, theme] of [
    [SIZES[0], 'light'],
    [SIZES[1], 'dark'],
  ] as const) {
    it(`after a key switch: no error, and the same model, tokens, cost and tool time as live (${size.width}×${size.height}, ${theme})`, async () => {
      const page = await openApp(rig, size, theme);
      await page.locator('main.chat[data-ready="true"]').waitFor();
      await page.keyboard.press('Control+n');
      await page.locator('main.chat[data-ready="true"]').waitFor();
      const answer = `Answered on the second key (${size.width}).`;
      rig.fake.enqueue(
        { fault: { kind: 'rate_limit', retryAfterSeconds: 1 } },
        { toolCalls: [{ name: 'list', arguments: { path: '.' } }], usage: { input: 1200, output: 30 } },
        { text: answer, usage: { input: 1500, output: 40 } },
      );
      await send(page, `list the folder (${size.width})`);
      const live = reply(page, answer);
      await live.and(page.locator('[data-status="done"]')).waitFor({ timeout: 20_000 });
      const seen = async () => ({
        status: await live.getAttribute('data-status'),
        model: await live.locator('.msg-model').textContent(),
        usage: await live.getByTestId('turn-usage').textContent(),
        tool: await live.getByTestId('tool-call').first().locator('.tool-meta').textContent(),
        errors: await live.locator('.run-error').count(),
        retryLines: await live.getByTestId('retry-line').allTextContents(),
      });
      const before = await seen();
      expect(before.status).toBe('done');
      expect(before.model).toBe('fake/claude-sonnet-4-5');
      expect(before.usage).toMatch(/in · .* out · \$/);
      expect(before.tool).toMatch(/\d+ ?m?s/);
      expect(before.retryLines).toEqual([expect.stringContaining('fake:personal')]); // the key switch, said live
      await page.reload();
      await live.waitFor({ timeout: 20_000 });
      const after = await seen();
      await shot(page, `history-after-reload-${theme}`);
      // a top bar with a cooling key in it still fits (nothing cut off at the edge, nothing scrolls)
      expect(describeLayout(await layoutProblems(page))).toEqual([]);
      expect(after).toEqual(before);
      expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
      await page.close();
    }, 90_000);
  }
});
