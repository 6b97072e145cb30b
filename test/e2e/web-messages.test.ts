/**
 * Issue 18 item 9 in the window (Debian Chromium against out/main/web.js, the real SDKs against the fake provider):
 * a rejected key and a provider that is down read as the message catalogue words them (preload/messages/) — the
 * provider and key as configured, what happened, no internal category — with the actions that fit, and the same
 * line the CLI prints for the same situation (`agentdesk agent --json`, meta.error). Screenshots under
 * test-results/messages/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { cleanEnv, ensureBuilt as ensureCliBuilt, runCli } from '../support/cli.js';
import { ensureBuilt, makeFolders, offlineEnv, RESULTS, startBrowserAndServer, type WebServer } from './helpers.js';

const KEY = 'sk-ant-e2e-msg-key-0001';

/**
 * A port nothing listens on: one of the low, unassigned ports (none of fetch's "bad ports", which it refuses to
 * dial), checked refused. Not an ephemeral port taken and freed: another server of the run (a fake provider with a
 * rejected-key fault) could be given it in between, and the "down" provider then answered 401.
 */
async function closedPort(): Promise<number> {
  const refused = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
  for (const port of [2, 4, 6, 8]) if (await refused(port)) return port;
  throw new Error('every candidate port for the "down" provider answers');
}
const INTERNAL_PREFIX = /(^|[\s(])(auth|rate_limit|billing|timeout|internal|bad_request|not_found|server_error|model_not_found|overloaded|unknown):/;
const SHOTS = join(RESULTS, 'messages');

let fake: FakeProvider;
let browser: Browser;
let web: WebServer;
let close: () => Promise<void>;
let home: string;
let workspace: string;

beforeAll(async () => {
  ensureBuilt(['out/main/web.js', 'out/renderer/index.html']);
  await ensureCliBuilt();
  mkdirSync(SHOTS, { recursive: true });
  fake = await startFakeAnthropic();
  ({ home, workspace } = makeFolders('web-messages'));
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: {
        fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] },
        // Nothing listens on that port: the provider is down.
        down: { api: 'openai-chat', baseUrl: `http://127.0.0.1:${await closedPort()}/v1`, models: [{ id: 'm' }] },
      },
      authProfiles: [
        { id: 'fake:work', provider: 'fake', apiKeyEnv: 'FAKE_KEY' },
        { id: 'down:main', provider: 'down', apiKeyEnv: 'FAKE_KEY' },
      ],
      agent: { model: { primary: 'fake/claude-fake' } },
    }),
  );
  ({ browser, web, close } = await startBrowserAndServer(home, workspace, offlineEnv({ FAKE_KEY: KEY })));
}, 180_000);

afterAll(async () => {
  await close?.();
  await fake?.close();
});

/** Sends `text` on `model` in a new page; resolves with the reply that ended in error and its alert line. */
async function failedTurn(model: string, text: string): Promise<{ page: Page; line: string; reply: ReturnType<Page['getByTestId']> }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(web.url);
  await page.locator(`select[aria-label="Model"] option[value="${model}"]`).waitFor({ state: 'attached' });
  await page.locator('main.chat[data-ready="true"]').waitFor();
  // A chat of its own: the reopened one ends with the previous test's failed reply, which `last()` would find first.
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await expect.poll(() => page.locator('[data-testid="user-message"], [data-testid="assistant-message"]').count()).toBe(0);
  await page.getByLabel('Model').selectOption(model);
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.getByTestId('assistant-message').last();
  await expect.poll(() => reply.getAttribute('data-status'), { timeout: 30_000 }).toBe('error');
  const line = (await reply.getByRole('alert').textContent()) ?? '';
  return { page, line, reply };
}

/** The CLI's line for the same situation (a home of its own with the same config). */
async function cliLine(model: string): Promise<string> {
  const { home: cliHome } = makeFolders('web-messages-cli');
  writeFileSync(join(cliHome, 'config.json'), readFileSync(join(home, 'config.json'), 'utf8'));
  const r = await runCli(['agent', '--json', '--home', cliHome, '--workspace', workspace, '--model', model, '--message', 'hi'], { env: cleanEnv({ FAKE_KEY: KEY }) });
  expect(r.exitCode, r.stderr).toBe(1);
  return String((r.lines.at(-1) as { meta: { error: string } }).meta.error);
}

describe('the window words failures as the catalogue does', () => {
  it('a rejected key: the provider and key as configured, Open settings, the same line as the CLI', async () => {
    fake.setDefault({ fault: { kind: 'auth' } });
    const { page, line, reply } = await failedTurn('fake/claude-fake', 'hello');
    expect(line).toMatch(/^fake key 'work' was rejected \(401\): invalid x-api-key/);
    expect(line).not.toMatch(INTERNAL_PREFIX);
    expect(line).not.toContain(KEY);
    expect(await reply.getByRole('button', { name: 'Open settings' }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'key-rejected.png') });
    expect(line).toContain(await cliLine('fake/claude-fake'));
    await page.close();
  }, 90_000);

  it('the provider is down: "Could not reach down: nothing answered at its address…", Retry, the same line as the CLI', async () => {
    const { page, line, reply } = await failedTurn('down/m', 'hello');
    expect(line).toMatch(/Could not reach down: nothing answered at its address \(connection refused: is the server running, is the base URL right\?\)/);
    expect(line).not.toMatch(INTERNAL_PREFIX);
    expect(await reply.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'provider-down.png') });
    expect(line).toContain(await cliLine('down/m'));
    await page.close();
  }, 90_000);
});
