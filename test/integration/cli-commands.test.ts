/**
 * Commands the engine owns through the real CLI and the fake providers (E22, E19): `--message /stop` on a session
 * whose reply streams in ANOTHER `agentdesk agent` process stops that run (through the session's run lock) and no
 * request ever carries "/stop"; `/model` and `/think` change the session's next turn; an enabled plugin's command
 * hooks fire.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { lastUserText } from '../fake/index.js';
import { ROOT, cleanEnv, runCli } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'cmd-ws' });
const env = cleanEnv({ FAKE_ANT_KEY: 'sk-ant-commands-0001', FAKE_OAI_KEY: 'sk-oai-commands-0001' });

const config = (extra: Record<string, unknown> = {}) =>
  fakeProvidersConfig(fakes, {
    models: { fakeant: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, reasoning: true }] },
    extra: { agent: { model: { primary: 'fakeant/claude-fake' } }, ...extra },
  });

const agent = (home: string, session: string, message: string, more: string[] = []) =>
  runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--session', session, '--message', message, ...more], { env });

const allRequests = () => [...fakes.anthropic.requests, ...fakes.openai.requests];

describe('engine-owned commands through the CLI', () => {
  it('--message /stop stops the run of the session streaming in another process; no request carries "/stop"', async () => {
    const home = await homeWith(config());
    fakes.anthropic.requests.length = 0;
    fakes.anthropic.setDefault((req) => (lastUserText(req) === 'write a long story' ? { text: 'Once upon a time '.repeat(200), chunkSize: 6, delayMs: 30 } : { text: 'short answer' }));
    const busy = execa(process.execPath, [join(ROOT, 'bin', 'agentdesk.mjs'), 'agent', '--home', home, '--workspace', fakes.workspace, '--session', 'story', '--message', 'write a long story'], {
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    while (!fakes.anthropic.requests.some((r) => lastUserText(r) === 'write a long story')) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300)); // it is streaming
    const t0 = Date.now();
    const stop = await agent(home, 'story', '/stop', ['--json']);
    expect(stop.exitCode).toBe(0);
    const result = stop.lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', status: 'ok', meta: { command: 'stop', attempts: 0 } });
    expect((result.payloads as { text: string }[])[0]!.text).toMatch(/^Stopped the reply/);
    const ended = await busy;
    expect(Date.now() - t0).toBeLessThan(6000); // stopped, not run to its end (200 chunks × 30 ms)
    expect(ended.exitCode).toBe(1);
    expect(String(ended.stderr)).toMatch(/The run was stopped/);

    const next = await agent(home, 'story', 'and then?');
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toBe('short answer');
    expect(JSON.stringify(allRequests().map((r) => r.body))).not.toContain('/stop');
    // The stopped turn is in the next request, marked as stopped (E22), not merged into the new prompt.
    expect(JSON.stringify(fakes.anthropic.requests.at(-1)!.body.messages)).toMatch(/no reply: the run was stopped/);
  }, 60_000);

  it('/model and /think change the model and thinking level of the session\'s next turn', async () => {
    const home = await homeWith(config());
    fakes.anthropic.requests.length = 0;
    fakes.openai.requests.length = 0;
    expect((await agent(home, 'm', 'hello')).exitCode).toBe(0);
    expect(fakes.anthropic.requests.at(-1)!.body.thinking).toBeUndefined();
    const think = await agent(home, 'm', '/think medium');
    expect(think).toMatchObject({ exitCode: 0, stdout: 'Thinking is medium from the next turn.' });
    expect((await agent(home, 'm', 'think now')).exitCode).toBe(0);
    expect(fakes.anthropic.requests.at(-1)!.body.thinking).toMatchObject({ type: 'enabled' });
    const model = await agent(home, 'm', '/model fakeoai/gpt-fake');
    expect(model).toMatchObject({ exitCode: 0, stdout: 'The next turn uses fakeoai/gpt-fake.' });
    expect((await agent(home, 'm', 'switch')).exitCode).toBe(0);
    expect(fakes.openai.requests).toHaveLength(1);
    expect(lastUserText(fakes.openai.requests[0]!)).toBe('switch');
    expect(fakes.anthropic.requests).toHaveLength(2);
    const bad = await agent(home, 'm', '/model nope/nothing');
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/^agentdesk: .*nope/m);
    expect(JSON.stringify(allRequests().map((r) => r.body))).not.toMatch(/\/model|\/think/);
  }, 60_000);

  it("an enabled plugin's command hooks fire", async () => {
    const home = await homeWith(config({ plugins: { enabled: ['audit'] } }));
    const log = join(home, 'commands.log');
    await mkdir(join(home, 'plugins', 'audit'), { recursive: true });
    await writeFile(
      join(home, 'plugins', 'audit', 'index.mjs'),
      `import { appendFileSync } from 'node:fs';
       const note = (e) => appendFileSync(${JSON.stringify(log)}, JSON.stringify(e) + '\\n');
       export default (api) => { for (const c of ['stop', 'new', 'reset', 'compact', 'status']) api.on('command:' + c, note); };`,
    );
    for (const m of ['/status', '/stop', '/new', '/compact', '/reset']) expect((await agent(home, 'p', m)).exitCode).toBe(0);
    const seen = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { command: string; sessionKey: string; ok: boolean });
    expect(seen.map((e) => [e.command, e.sessionKey, e.ok])).toEqual([
      ['status', 'p', true],
      ['stop', 'p', true],
      ['new', 'p', true],
      ['compact', 'p', true],
      ['reset', 'p', true],
    ]);
  }, 60_000);
});
