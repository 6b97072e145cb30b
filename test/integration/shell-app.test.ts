/**
 * The desktop app as Electron would run it, without the Electron binary: the BUILT main bundle (out/main/index.js)
 * in a plain Node process whose `electron` is the stub (test/support/electron, faithful to Electron 41's documented
 * API) and whose electron-store, conf and everything else are the real packages. The stub stands in for Chromium
 * and the user: the test plays the renderer's IPC requests and the window's close button.
 *
 * Checked: the first and the second launch create settings.json and leave config.json alone (electron-store 11
 * writes `<name>.json`; given only `configName` it wrote config.json and the engine refused to start); the window
 * loads the built page with the built preload; a request round-trips through the real IPC handler, and a frame that
 * is not the app's top frame is refused; quitting with a run in progress waits for the gateway to close — the run's
 * transcript ends with a finished turn, undo-window deletions are purged, gateway_stop hooks ran — and exits 0;
 * the built app's guards (permissions, navigation, spellchecker, menu) are in place.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider } from '../fake/index.js';
import { ensureBuilt, makeFolders, offlineEnv, ROOT } from '../e2e/helpers.js';
import { launchStubbedApp, waitInApp, type StubbedApp } from '../support/electron/launch.js';

const MAIN = join(ROOT, 'out/main/index.js');
const FAKE_KEY = 'sk-ant-shell-test-0001';
let fake: FakeProvider;
const running: StubbedApp[] = [];

beforeAll(async () => {
  ensureBuilt(['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html']);
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.kill()));
  fake.requests.length = 0;
});

function launch(home: string, workspace: string): StubbedApp {
  const app = launchStubbedApp(MAIN, offlineEnv({ AGENTDESK_HOME: home, AGENTDESK_WORKSPACE: workspace, FAKE_KEY }));
  running.push(app);
  return app;
}

/** Waits until the main window has loaded its page and shown itself; returns its URL. */
function windowShown(app: StubbedApp): Promise<string> {
  return waitInApp(app, ({ BrowserWindow }) => {
    const win = BrowserWindow.getAllWindows()[0];
    return win?.isVisible() && win.webContents.getURL() !== '' ? win.webContents.getURL() : undefined;
  });
}

/** The renderer's `window.agentdesk.request(method, params)`: ipcRenderer.invoke from the window's top frame. */
function request(app: StubbedApp, method: string, params: unknown = {}): Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }> {
  return app.evaluate(
    ({ __stub, BrowserWindow }, arg) => __stub.invoke(BrowserWindow.getAllWindows()[0]!.webContents, 'agentdesk:request', [arg.method, arg.params]),
    { method, params },
  ) as Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }>;
}

const settingsVersion = (home: string) =>
  (JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as { __internal__?: { migrations?: { version?: string } } }).__internal__?.migrations?.version;

describe('the built desktop app on the electron stub, with the real electron-store', () => {
  it('first launch: settings.json (not config.json), the built page and preload, an IPC round trip; quit exits 0', async () => {
    const { home: base, workspace } = makeFolders('shell-first');
    const home = join(base, 'AgentDesk'); // not there yet: the app creates it (app.setPath needs an existing folder)
    const app = launch(home, workspace);
    const url = await windowShown(app);
    expect(url).toBe(pathToFileURL(join(ROOT, 'out/renderer/index.html')).href);
    const state = await app.evaluate(({ __stub, app: electronApp }) => ({
      errorBoxes: __stub.state.errorBoxes,
      preloadErrors: __stub.state.preloadErrors,
      userData: electronApp.getPath('userData'),
    }));
    expect(state.errorBoxes).toEqual([]);
    expect(state.preloadErrors).toEqual([]); // out/preload/index.cjs exists where the window looks for it
    expect(state.userData).toBe(home);
    expect(existsSync(join(home, 'settings.json'))).toBe(true);
    expect(settingsVersion(home)).toMatch(/^\d+\.\d+\.\d+$/);
    expect(existsSync(join(home, 'config.json'))).toBe(false);

    // The built app's guards, as Chromium would meet them: the Copy buttons' clipboard write only, the page may
    // reload itself, a web link goes to the (stubbed) system browser, no downloaded spellchecker, the menu is set.
    const guards = await app.evaluate(async ({ __stub, BrowserWindow, session }) => {
      const wc = BrowserWindow.getAllWindows()[0]!.webContents;
      const asker = { isMainFrame: true, requestingUrl: wc.getURL() };
      return {
        clipboard: await __stub.requestPermission(wc, 'clipboard-sanitized-write', asker),
        camera: await __stub.requestPermission(wc, 'media', asker),
        spellcheck: session.defaultSession.isSpellCheckerEnabled(),
        reload: __stub.navigate(wc, wc.getURL()),
        away: __stub.navigate(wc, 'https://example.com/'),
        opened: __stub.state.openedExternal,
        menu: __stub.state.applicationMenu?.items.map((i) => i.label ?? i.role),
      };
    });
    expect(guards).toEqual({
      clipboard: true,
      camera: false,
      spellcheck: process.platform === 'darwin',
      reload: true,
      away: false,
      opened: ['https://example.com/'],
      menu: process.platform === 'darwin' ? ['AgentDesk', 'File', 'editMenu', 'View', 'windowMenu'] : ['File', 'editMenu', 'View', 'windowMenu'],
    });

    const info = await request(app, 'app.info');
    expect(info.ok).toBe(true);
    expect(info.result).toMatchObject({ version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version });
    expect(await request(app, 'no.such.method')).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    // An iframe of the page (even one showing the app's own URL) and a page elsewhere may not call the gateway.
    const refused = await app.evaluate(async ({ __stub, BrowserWindow }) => {
      const wc = BrowserWindow.getAllWindows()[0]!.webContents;
      const frame = __stub.addSubframe(wc, wc.getURL());
      return __stub.invoke(wc, 'agentdesk:request', ['app.info', {}], frame);
    });
    expect(refused).toEqual({ ok: false, error: { code: 'forbidden', message: 'sender not allowed' } });

    app.fire(({ app: electronApp }) => electronApp.quit());
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('second launch: config.json is used and kept byte for byte; quitting mid-run finishes the run, purges deletions, runs gateway_stop', async () => {
    const { home, workspace } = makeFolders('shell-second');
    // First launch creates settings.json; quit.
    const first = launch(home, workspace);
    await windowShown(first);
    first.fire(({ app: electronApp }) => electronApp.quit());
    expect((await first.exited).code).toBe(0);
    const settingsBefore = readFileSync(join(home, 'settings.json'), 'utf8');

    // The person's engine config (a provider, a plugin with a gateway_stop hook): it must stay as written.
    const config = `${JSON.stringify(
      {
        providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } },
        authProfiles: [{ id: 'fake:shell', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
        agent: { model: { primary: 'fake/claude-fake' } },
        plugins: { enabled: ['stop-marker'] },
      },
      null,
      2,
    )}\n`;
    writeFileSync(join(home, 'config.json'), config);
    const pluginDir = join(home, 'plugins', 'stop-marker');
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(
      join(pluginDir, 'index.mjs'),
      "import { writeFile } from 'node:fs/promises';\nexport default { hooks: { gateway_stop: async () => { await new Promise((r) => setTimeout(r, 100)); await writeFile(new URL('./stopped', import.meta.url), 'yes'); } } };\n",
    );

    const app = launch(home, workspace);
    await windowShown(app);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(config);
    expect(readFileSync(join(home, 'settings.json'), 'utf8')).toBe(settingsBefore);
    expect(await app.evaluate(({ __stub }) => __stub.state.errorBoxes)).toEqual([]);

    // A chat deleted just before quitting (its undo window still open) …
    const doomed = await request(app, 'agent', { message: 'to be deleted', sessionKey: 'doomed' });
    expect(doomed.ok).toBe(true);
    expect((await request(app, 'agent.wait', { runId: (doomed.result as { runId: string }).runId })).ok).toBe(true);
    expect(await request(app, 'sessions.delete', { sessionKey: 'doomed' })).toMatchObject({ ok: true, result: { deleted: true } });
    const deletedFiles = () => readdirSync(join(home, 'sessions')).filter((n) => n.endsWith('.deleted'));
    expect(deletedFiles()).toHaveLength(1);

    // … and a run whose provider stalls mid-reply, in progress when the person closes the window.
    fake.enqueue({ text: 'Half an answer before the provider stalls', chunkSize: 6, fault: { kind: 'stall', afterEvents: 6 } });
    const accepted = await request(app, 'agent', { message: 'a question', sessionKey: 'busy' });
    expect(accepted.ok).toBe(true);
    const { sessionId } = accepted.result as { sessionId: string };
    for (let i = 0; i < 400 && fake.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(fake.requests).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 100)); // some of the reply has streamed

    app.fire(({ __stub, BrowserWindow }) => __stub.closeWindow(BrowserWindow.getAllWindows()[0]!));
    expect(await app.exited).toEqual({ code: 0, signal: null });

    const lines = readFileSync(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ type: 'message', message: { role: 'assistant', stopReason: 'aborted' } });
    expect(JSON.stringify(last.message)).toContain('Half an answer'); // the streamed part is kept
    expect(deletedFiles()).toEqual([]);
    expect(readFileSync(join(pluginDir, 'stopped'), 'utf8')).toBe('yes');
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(config);
  });

  it('a config.json the engine cannot use: an error box naming the problem, exit 1, the file untouched', async () => {
    const { home, workspace } = makeFolders('shell-bad-config');
    writeFileSync(join(home, 'config.json'), '{ "agent": { "maxConcurrent": "lots" } }\n');
    const app = launch(home, workspace);
    expect((await app.exited).code).toBe(1);
    expect(app.output().stderr).toMatch(/error box: AgentDesk: config\.json: .*maxConcurrent/);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe('{ "agent": { "maxConcurrent": "lots" } }\n');
  });
});
