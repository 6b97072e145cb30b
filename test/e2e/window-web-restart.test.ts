/**
 * Issue 18 items 11 and 13 at the web server: `npm run web` keeps its port across restarts (remembered per home;
 * `--port` still wins), so a tab left open reaches the restarted server and says its link went stale — keeping the
 * draft — instead of spinning; a remembered port that is taken gives way with a note; the URL is the last thing
 * printed; without --workspace or a chosen folder the workspace is ~/AgentDesk, never the folder it was started
 * from (AgentDesk's own source when started with `npm run web`).
 */
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, makeFolders, offlineEnv, startWebServer, type WebServer } from './helpers.js';
import { launchChromium } from './browser.js';
import { SHOTS } from './window-helpers.js';

let browser: Browser;
const servers: WebServer[] = [];
beforeAll(async () => {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await browser?.close();
});

describe('npm run web across restarts', () => {
  it('keeps its port; the open tab says its link is stale and keeps the draft; the workspace is ~/AgentDesk', async () => {
    const { home } = makeFolders('web-restart');
    const fakeHome = join(home, '..', 'user');
    mkdirSync(fakeHome);
    const env = offlineEnv({ HOME: fakeHome });
    // started from AgentDesk's own folder, as `npm run web` does, with no --port and no --workspace
    const first = await startWebServer(home, null, env, null, ROOT);
    servers.push(first);
    expect(JSON.parse(readFileSync(join(home, 'web.json'), 'utf8'))).toEqual({ port: first.port });
    const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    await page.goto(first.url);
    await page.locator('main.chat[data-ready="true"]').waitFor();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    expect(await page.getByTestId('current-folder').textContent()).toBe(join(fakeHome, 'AgentDesk'));
    expect(existsSync(join(fakeHome, 'AgentDesk'))).toBe(true);
    await page.getByRole('button', { name: 'Back to chat' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('a draft typed before the restart');

    await first.stop();
    const second = await startWebServer(home, null, env, null, ROOT);
    servers.push(second);
    expect(second.port).toBe(first.port);
    expect(second.token).not.toBe(first.token);
    // the tab reaches the restarted server, which refuses the old token: it says so, the draft stays
    const offline = page.getByTestId('offline');
    await expect.poll(() => offline.textContent(), { timeout: 20_000 }).toContain('This link no longer works');
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('a draft typed before the restart');
    await page.screenshot({ path: join(SHOTS, 'stale-tab-light-640x480.png') });

    // the URL is the last line printed; a remembered port that is taken gives way, with a note
    await second.stop();
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(first.port, '127.0.0.1', r));
    try {
      const third = await startWebServer(home, null, env, null, ROOT);
      servers.push(third);
      expect(third.port).not.toBe(first.port);
      await expect.poll(() => third.output().stderr).toContain(`port ${first.port} (the one this home remembers) is in use`);
      expect(third.output().stdout.trim().split('\n').at(-1)).toBe(`AgentDesk web UI: ${third.url}`);
      expect(JSON.parse(readFileSync(join(home, 'web.json'), 'utf8'))).toEqual({ port: first.port }); // still the remembered one
      await third.stop();
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
    // --port still wins
    const fourth = await startWebServer(home, null, env, 0, ROOT);
    servers.push(fourth);
    expect(fourth.port).not.toBe(first.port);
    await page.close();
  }, 120_000);

  it('a tab whose server is gone says, after a few tries, where the new link is', async () => {
    const { home, workspace } = makeFolders('web-gone');
    const web = await startWebServer(home, workspace, offlineEnv());
    servers.push(web);
    const page = await browser.newPage();
    await page.goto(web.url);
    await page.locator('main.chat[data-ready="true"]').waitFor();
    await web.stop();
    const hint = page.getByTestId('offline-hint');
    await hint.waitFor({ timeout: 30_000 });
    expect(await hint.textContent()).toContain('If you restarted npm run web, open the link it printed');
    await page.close();
  }, 60_000);
});
