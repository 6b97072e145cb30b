/**
 * E20 subagents end to end: the parent model calls `spawn_subagent`, the child runs in its own linked session in
 * the subagent lane (real Anthropic SDK against the fake server), and is listed, steered and aborted — through the
 * gateway, and through `agentdesk subagents` in new processes while the parent runs in another `agentdesk agent`.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAppGateway, type AppGateway } from '../../main/gateway/create.js';
import { startFakeAnthropic, trailingToolResults, type FakeProvider, type FakeTurn, type RecordedRequest } from '../fake/index.js';
import { ROOT, cleanEnv, ensureBuilt, runCli, tempDir, writeConfig } from '../support/cli.js';

let fake: FakeProvider;
let gateway: AppGateway | undefined;
const KEY = { FAKE_KEY: 'sk-ant-subagent-0001' };

beforeAll(async () => {
  await ensureBuilt();
  fake = await startFakeAnthropic();
}, 120_000);
afterAll(async () => fake?.close());
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  fake.requests.length = 0;
});

async function newHome(): Promise<string> {
  const home = await tempDir('sub-home');
  await writeConfig(home, {
    providers: { fake: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'm1' }] } },
    authProfiles: [{ id: 'fake:test', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
    agent: { model: { primary: 'fake/m1' } },
  });
  return home;
}

const userTexts = (req: RecordedRequest): string[] =>
  (req.body.messages as { role: string; content: { type: string; text?: string }[] }[])
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content.filter((b) => b.type === 'text').map((b) => b.text ?? ''));

/** Parent: "delegate" → spawn_subagent, then report the tool result. Child: stalls on its task, answers when steered. */
function scenario(req: RecordedRequest): FakeTurn {
  const texts = userTexts(req);
  if (texts[0] === 'delegate') {
    const result = trailingToolResults(req);
    return result === null ? { toolCalls: [{ name: 'spawn_subagent', arguments: { task: 'CHILD: count the files' } }] } : { text: `parent got: ${result}` };
  }
  if (texts.at(-1) === 'NEW TASK') return { text: 'child reply 42' };
  return { text: 'thinking about it', chunkSize: 1, fault: { kind: 'stall', afterEvents: 3 } };
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('subagents through the gateway', () => {
  it('spawns a child in its own linked session; aborting it gives the parent a clear tool error', async () => {
    fake.setDefault(scenario);
    const home = await newHome();
    gateway = await createAppGateway({ home, workspace: await tempDir('sub-ws'), env: KEY });
    const gw = gateway;
    const parent = await gw.request('agent', { message: 'delegate' });
    const [sub] = await until(async () => {
      const list = await gw.request('subagents.list', {});
      return list.length && list[0]!.status === 'running' ? list : undefined;
    });
    expect(sub).toMatchObject({ parentSessionKey: 'main', parentRunId: parent.runId, task: 'CHILD: count the files', steers: 0 });
    const sessions = await gw.request('sessions.list', {});
    expect(sessions.map((s) => s.sessionKey).sort()).toEqual(['main', sub!.sessionKey]);
    expect(await gw.request('subagents.abort', { id: sub!.id })).toEqual({ aborted: true });
    expect((await gw.request('agent.wait', { runId: parent.runId, timeoutMs: 20_000 })).status).toBe('ok');
    const result = await gw.request('agent.result', { runId: parent.runId });
    expect(result!.payloads[0]!.text).toMatch(/^parent got: The subagent ended with error: The subagent was stopped/);
    await expect(gw.request('subagents.steer', { id: 'nope', message: 'x' })).rejects.toMatchObject({ code: 'not_found' });
  }, 30_000);
});

describe('agentdesk subagents (new processes)', () => {
  it('lists the subagent of a running `agentdesk agent`, steers it, and the parent gets the steered reply', async () => {
    fake.setDefault(scenario);
    const home = await newHome();
    const workspace = await tempDir('sub-ws');
    const env = cleanEnv(KEY);
    const parent = execa('node', [join(ROOT, 'bin', 'agentdesk.mjs'), 'agent', '--json', '--home', home, '--workspace', workspace, '--session', 'main', '--message', 'delegate'], {
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    try {
      const sub = await until(async () => {
        const r = await runCli(['subagents', 'list', '--json', '--home', home], { env });
        const list = JSON.parse(r.stdout) as { id: string; status: string; parentSessionKey: string }[];
        return list.find((s) => s.status === 'running');
      });
      expect(sub.parentSessionKey).toBe('main');
      const text = await runCli(['subagents', 'list', '--home', home], { env });
      expect(text.stdout).toContain(`${sub.id}\trunning\tparent main`);
      const steer = await runCli(['subagents', 'steer', sub.id, '--message', 'NEW TASK', '--home', home], { env });
      expect(steer.stderr).toBe('');
      expect(steer.exitCode).toBe(0);
      expect(steer.stdout).toMatch(/^Steered subagent /);
      const done = await parent;
      expect(done.exitCode).toBe(0);
      const result = String(done.stdout).trim().split('\n').map((l) => JSON.parse(l)).at(-1);
      expect(result.payloads[0].text).toBe('parent got: child reply 42');
      expect((await runCli(['subagents', 'list', '--home', home], { env })).stdout).toBe('No subagents.');
      const usage = await runCli(['subagents', 'steer', sub.id, '--home', home], { env });
      expect(usage.exitCode).toBe(2);
      expect(usage.stderr).toContain('--message');
      const gone = await runCli(['subagents', 'abort', sub.id, '--home', home], { env });
      expect(gone.exitCode).toBe(1);
      expect(gone.stderr).toMatch(/no subagent with id/);
    } finally {
      parent.kill();
    }
  }, 60_000);
});
