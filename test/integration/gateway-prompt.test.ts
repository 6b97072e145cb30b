/**
 * Prompt and tools per run (E9), through the in-process gateway and the fake Anthropic server: the chat's custom
 * instructions (`sessions.update` extraSystemPrompt) and a request's `extraSystemPrompt` reach the system prompt of
 * that chat's runs only; a tool on the deny list (`agent.approvals.denyTools`) is not offered to the model at all.
 */
import { describe, expect, it } from 'vitest';
import type { AppGateway } from '../../main/gateway/create.js';
import { useGatewayHarness } from '../support/gateway.js';

const gateways = useGatewayHarness();
const { fakes } = gateways;

const open = (agent: Record<string, unknown> = {}) =>
  gateways.open({
    prefix: 'gwp',
    env: { FAKE_KEY: 'sk-ant-prompt-test' },
    configJson: {
      providers: { fake: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: 5, models: [{ id: 'm1' }] } },
      authProfiles: [{ id: 'fake:test', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/m1' }, ...agent },
    },
  });

async function send(gw: AppGateway, sessionKey: string, message: string, extra: Record<string, unknown> = {}) {
  const { runId } = await gw.request('agent', { message, sessionKey, ...extra });
  expect((await gw.request('agent.wait', { runId })).status).toBe('ok');
  return fakes.anthropic.requests.at(-1)!;
}

const systemOf = (req: { body: { system?: unknown } }) => JSON.stringify(req.body.system);
const toolsOf = (req: { body: { tools?: { name: string }[] } }) => (req.body.tools ?? []).map((t) => t.name);

describe('custom instructions (extraSystemPrompt)', () => {
  it("the chat's own instructions and a request's extra text reach that chat's system prompt, no other", async () => {
    const { gw } = await open();
    await send(gw, 'a', 'hello');
    const updated = await gw.request('sessions.update', { sessionKey: 'a', extraSystemPrompt: 'Always answer in French.' });
    expect(updated.extraSystemPrompt).toBe('Always answer in French.');
    expect(systemOf(await send(gw, 'a', 'again'))).toContain('Always answer in French.');
    const both = systemOf(await send(gw, 'a', 'more', { extraSystemPrompt: 'Be brief this time.' }));
    expect(both).toMatch(/Always answer in French\.\\n\\nBe brief this time\./);
    expect(systemOf(await send(gw, 'b', 'other chat'))).not.toContain('French');
    await gw.request('sessions.update', { sessionKey: 'a', extraSystemPrompt: null });
    expect(systemOf(await send(gw, 'a', 'cleared'))).not.toContain('French');
    expect((await gw.request('sessions.list', {})).find((s) => s.sessionKey === 'a')!.extraSystemPrompt).toBeUndefined();
  });
});

describe('the deny list', () => {
  it('a denied tool is not offered: not in the request, not in the prompt\'s tool list', async () => {
    const { gw } = await open({ approvals: { denyTools: ['exec', 'send_message'] } });
    const req = await send(gw, 'd', 'hello');
    const tools = toolsOf(req);
    expect(tools).toContain('read');
    expect(tools).not.toContain('exec');
    expect(tools).not.toContain('send_message');
    expect(systemOf(req)).not.toMatch(/Tools: [^"]*\bexec\b/);
    const { gw: open2 } = await open();
    expect(toolsOf(await send(open2, 'd', 'hello'))).toEqual(expect.arrayContaining(['exec', 'send_message']));
  });
});

describe('history limit by turns (agent.historyTurns, a session\'s own)', () => {
  const users = (req: { body: { messages: { role: string }[] } }) => req.body.messages.filter((m) => m.role === 'user').length;
  it('only the last N turns are sent; the session\'s own limit wins; the transcript keeps everything', async () => {
    const { gw } = await open({ historyTurns: 2 });
    for (const m of ['one', 'two', 'three']) await send(gw, 'h', m);
    const req = await send(gw, 'h', 'four');
    expect(JSON.stringify(req.body.messages)).not.toMatch(/"one"|"two"/);
    expect(JSON.stringify(req.body.messages)).toMatch(/three[\s\S]*four/);
    expect(users(req)).toBe(2);
    await gw.request('sessions.update', { sessionKey: 'h', historyTurns: 1 });
    const only = await send(gw, 'h', 'five');
    expect(users(only)).toBe(1);
    const history = await gw.request('sessions.history', { sessionKey: 'h' });
    expect(history.filter((e) => e.role === 'user').map((e) => (e as { text: string }).text)).toEqual(['one', 'two', 'three', 'four', 'five']);
  });
});

