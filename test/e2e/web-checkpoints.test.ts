/**
 * X2 in the web UI (Debian Chromium, `out/main/web.js`, the real Anthropic SDK against the fake server): a turn
 * writes a file and runs a shell command that deletes one and creates another; its message offers "Restore…" and
 * the run is marked "Changed files". The dialog shows the summary (1 changed back, 1 brought back, 1 removed) and
 * a diff on click; "Restore files" puts the folder back, which the next turn's `list` tool call shows; "Undo
 * restore" takes it back. After a reload the action is still there. Screenshots in light, dark and narrow.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { ensureBuilt, makeFolders, offlineEnv, RESULTS, startWebServer, type WebServer } from './helpers.js';
import { launchChromium } from './browser.js';

let fake: FakeProvider;
let web: WebServer;
let browser: Browser;
let workspace: string;

beforeAll(async () => {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  fake = await startFakeAnthropic();
  const folders = makeFolders('web-checkpoints');
  workspace = folders.workspace;
  writeFileSync(
    join(folders.home, 'config.json'),
    JSON.stringify({
      providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } },
      authProfiles: [{ id: 'fake:e2e', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/claude-fake' }, approvals: { mode: 'auto' } },
    }),
  );
  [browser, web] = await Promise.all([
    launchChromium(),
    startWebServer(folders.home, workspace, offlineEnv({ FAKE_KEY: 'sk-ant-e2e-key-1717' })),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await fake?.close();
});

async function send(page: Page, text: string, n: number) {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.getByTestId('assistant-message').nth(n - 1);
  await expect.poll(() => reply.getAttribute('data-status'), { timeout: 20_000 }).toBe('done');
  return reply;
}

const state = () => ({
  notes: readFileSync(join(workspace, 'notes.txt'), 'utf8'),
  index: existsSync(join(workspace, 'src', 'index.js')),
  created: existsSync(join(workspace, 'new.txt')),
});

describe('Restore… in the web UI', () => {
  it('restore from a user message, see the summary and a diff, confirm, list shows it, undo the restore', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(web.url);
    await page.locator('select[aria-label="Model"] option[value="fake/claude-fake"]').waitFor({ state: 'attached' });

    fake.enqueue(
      {
        toolCalls: [
          { name: 'write', arguments: { path: 'notes.txt', content: 'buy bread instead\n' } },
          { name: 'exec', arguments: { command: 'rm src/index.js && echo hello > new.txt' } },
        ],
      },
      { text: 'Updated the notes and tidied up.' },
    );
    const first = await send(page, 'Tidy the project', 1);
    expect(state()).toEqual({ notes: 'buy bread instead\n', index: false, created: true });
    await first.getByTestId('changed-files').waitFor({ timeout: 10_000 });
    const restore = page.getByTestId('user-message').first().getByTestId('restore-open');
    await restore.waitFor();

    await restore.click();
    const dialog = page.getByTestId('restore-dialog');
    await expect.poll(() => dialog.getByTestId('restore-summary').textContent().catch(() => ''), { timeout: 10_000 }).toBe(
      'Restoring the files: 1 file changed back, 1 brought back, 1 removed.',
    );
    await dialog.getByRole('button', { name: /notes\.txt/ }).click();
    const diff = dialog.getByTestId('restore-diff');
    await diff.waitFor();
    expect(await diff.textContent()).toContain('-buy bread instead');
    expect(await diff.textContent()).toContain('+remember the milk');
    await page.screenshot({ path: join(RESULTS, 'checkpoints-dialog.png') });

    await dialog.getByTestId('restore-files').click();
    const notice = page.getByTestId('restore-notice');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toContain('Restored files to before “Tidy the project”');
    expect(state()).toEqual({ notes: 'remember the milk\n', index: true, created: false });
    await page.screenshot({ path: join(RESULTS, 'checkpoints-notice.png') });

    // The next turn's list call sees the restored folder.
    fake.enqueue({ toolCalls: [{ name: 'list', arguments: { path: '.' } }, { name: 'list', arguments: { path: 'src' } }] }, { text: 'Listed.' });
    const second = await send(page, 'What is there now?', 2);
    const results = await second.getByTestId('tool-call').allTextContents();
    expect(results[0]).toContain('notes.txt');
    expect(results[0]).not.toContain('new.txt');
    expect(results[1]).toContain('index.js');
    // A read-only turn records no checkpoint: its message has no Restore….
    expect(await page.getByTestId('user-message').nth(1).getByTestId('restore-open').count()).toBe(0);

    await notice.getByTestId('restore-undo').click();
    await expect.poll(() => notice.textContent(), { timeout: 10_000 }).toContain('Undid the last restore');
    expect(state()).toEqual({ notes: 'buy bread instead\n', index: false, created: true });

    // After a reload the message still offers Restore…, and the dialog works in dark mode on a narrow window.
    await page.setViewportSize({ width: 640, height: 480 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    const again = page.getByTestId('user-message').first().getByTestId('restore-open');
    await again.waitFor({ timeout: 10_000 });
    await page.getByTestId('assistant-message').first().getByTestId('changed-files').waitFor({ timeout: 10_000 });
    await again.click();
    await expect.poll(() => page.getByTestId('restore-summary').textContent().catch(() => ''), { timeout: 10_000 }).toContain('1 file changed back');
    await page.screenshot({ path: join(RESULTS, 'checkpoints-dialog-dark-narrow.png') });
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('restore-dialog').count()).toBe(0);
    await page.close();
  }, 120_000);
});
