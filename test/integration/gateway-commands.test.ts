/**
 * Commands the engine owns, through the in-process gateway (E22, E19): answered by the gateway — through `agent`
 * (as the CLI sends them) and `commands.run` (the UI's shortcuts) — never sent to the model, each firing its
 * command hook; `session_start` for every session that begins, also the ones the app creates or resets.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, RunResult } from '../../preload/contract.js';
import type { AppGateway } from '../../main/gateway/create.js';
import type { CommandHookEvent, EngineHooks } from '../../main/engine/attempt/hooks.js';
import { lastUserText } from '../fake/index.js';
import { useGatewayHarness } from '../support/gateway.js';

const gateways = useGatewayHarness();
const { fakes } = gateways;
const env = { FAKE_KEY: 'sk-ant-commands-test' };

const open = (hooks?: EngineHooks) =>
  gateways.open({
    prefix: 'gwc',
    env,
    ...(hooks ? { hooks } : {}),
    configJson: {
      providers: { fake: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: 5, models: [{ id: 'm1' }, { id: 'm2', reasoning: true }] } },
      authProfiles: [{ id: 'fake:test', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/m1' } },
    },
  });

async function send(gw: AppGateway, sessionKey: string, message: string): Promise<RunResult> {
  const { runId } = await gw.request('agent', { message, sessionKey });
  await gw.request('agent.wait', { runId });
  return (await gw.request('agent.result', { runId }))!;
}

const sentToModel = () => JSON.stringify(fakes.anthropic.requests.map((r) => r.body.messages));

describe('commands sent as messages (agent)', () => {
  it('/model and /think change the session for its next turn; neither reaches the model', async () => {
    const { gw } = await open();
    await send(gw, 's', 'first');
    expect(fakes.anthropic.requests.at(-1)!.body.model).toBe('m1');
    const model = await send(gw, 's', '/model fake/m2');
    expect(model).toMatchObject({ status: 'ok', payloads: [{ text: 'The next turn uses fake/m2.' }], meta: { command: 'model', attempts: 0 } });
    const think = await send(gw, 's', '/think high');
    expect(think.payloads[0]!.text).toBe('Thinking is high from the next turn.');
    const requests = fakes.anthropic.requests.length;
    await send(gw, 's', 'second');
    expect(fakes.anthropic.requests.length).toBe(requests + 1);
    const req = fakes.anthropic.requests.at(-1)!;
    expect(req.body.model).toBe('m2');
    expect(req.body.thinking).toMatchObject({ type: 'enabled' });
    expect(sentToModel()).not.toMatch(/\/model|\/think/);
    const listed = (await gw.request('sessions.list', {})).find((x) => x.sessionKey === 's')!;
    expect(listed).toMatchObject({ model: 'fake/m2', thinking: 'high' });
  });

  it('a bad argument is answered with the usage (status error), an unknown /word is an ordinary message', async () => {
    const { gw } = await open();
    const bad = await send(gw, 's', '/think harder');
    expect(bad).toMatchObject({ status: 'error', meta: { command: 'think' } });
    expect(bad.payloads[0]).toMatchObject({ isError: true, text: expect.stringMatching(/not a thinking level.*Usage: \/think/) });
    const unknownModel = await send(gw, 's', '/model fake/nope');
    expect(unknownModel.status).toBe('error');
    expect(fakes.anthropic.requests).toHaveLength(0);
    await send(gw, 's', '/usr/bin/env is missing, why?');
    expect(lastUserText(fakes.anthropic.requests.at(-1)!)).toBe('/usr/bin/env is missing, why?');
  });

  it('/stop stops the running reply and the messages queued behind it; the next turn carries no "/stop"', async () => {
    const { gw, events } = await open();
    fakes.anthropic.setDefault((req) => (lastUserText(req) === 'slow' ? { text: 'x'.repeat(400), chunkSize: 4, delayMs: 20 } : { text: 'ok' }));
    const { runId } = await gw.request('agent', { message: 'slow', sessionKey: 's' });
    const queued = await gw.request('agent', { message: 'queued behind', sessionKey: 's', queueMode: 'followup' });
    while (!events.some((e) => e.runId === runId && e.stream === 'assistant')) await new Promise((r) => setTimeout(r, 10));
    const stop = await send(gw, 's', '/stop');
    expect(stop).toMatchObject({ status: 'ok', payloads: [{ text: 'Stopped the reply and the messages queued behind it.' }] });
    expect(await gw.request('agent.wait', { runId })).toMatchObject({ status: 'error', error: 'The run was stopped.' });
    expect((await gw.request('agent.wait', { runId: queued.runId })).status).toBe('error');
    expect(fakes.anthropic.requests.map(lastUserText)).toEqual(['slow']); // the queued one never ran
    const again = await send(gw, 's', 'and now?');
    expect(again.status).toBe('ok');
    expect(sentToModel()).not.toContain('/stop');
    expect((await send(gw, 's', '/stop')).payloads[0]!.text).toBe('Nothing to stop: no reply is running in this session.');
  });

  it('each command fires its command hook (a plugin would see the same)', async () => {
    const seen: CommandHookEvent[] = [];
    const hook = (e: CommandHookEvent) => void seen.push(e);
    const { gw } = await open({ 'command:stop': hook, 'command:new': hook, 'command:reset': hook, 'command:model': hook, 'command:status': hook, 'command:compact': hook });
    await send(gw, 'cli-x', 'hello');
    await send(gw, 'cli-x', '/stop');
    await send(gw, 'cli-x', '/model fake/m2');
    await send(gw, 'cli-x', '/status');
    const created = await gw.request('commands.run', { sessionKey: 'cli-x', text: '/new' });
    await send(gw, 'cli-x', '/reset');
    await send(gw, 'cli-x', '/compact');
    await new Promise((r) => setTimeout(r, 20)); // fire-and-forget hooks
    expect(seen.map((e) => [e.command, e.args ?? null, e.ok])).toEqual([
      ['stop', null, true],
      ['model', 'fake/m2', true],
      ['status', null, true],
      ['new', null, true],
      ['reset', null, true],
      ['compact', null, true],
    ]);
    expect(seen[3]).toMatchObject({ sessionKey: 'cli-x', newSessionKey: created!.session!.sessionKey });
    expect(created!.session!.sessionKey).toMatch(/^cli-/);
    expect(created!.session!.model).toBeUndefined(); // /new starts on the defaults for new chats, not this session's choice
    expect(created!.notice).toContain('(fake/m1)');
  });
});

describe('commands.run (the UI shortcuts)', () => {
  it('answers a command with its outcome, ordinary text with null', async () => {
    const { gw } = await open();
    expect(await gw.request('commands.run', { sessionKey: 's', text: 'hello /stop' })).toBeNull();
    const verbose = await gw.request('commands.run', { sessionKey: 's', text: '/verbose on' });
    expect(verbose).toMatchObject({ command: 'verbose', ok: true, session: { sessionKey: 's', verbose: true } });
    const compact = await gw.request('commands.run', { sessionKey: 's', text: '/compact' });
    expect(compact).toMatchObject({ command: 'compact', ok: true, runId: expect.any(String) });
    expect((await gw.request('agent.wait', { runId: compact!.runId! })).status).toBe('ok');
    expect(fakes.anthropic.requests).toHaveLength(0);
  });

  it('/reset is refused while a reply runs in the session, and works after /stop', async () => {
    const { gw, events } = await open();
    fakes.anthropic.setDefault({ text: 'y'.repeat(400), chunkSize: 4, delayMs: 20 });
    const { runId } = await gw.request('agent', { message: 'long', sessionKey: 's' });
    while (!events.some((e: AgentEvent) => e.runId === runId && e.stream === 'assistant')) await new Promise((r) => setTimeout(r, 10));
    const before = (await gw.request('sessions.list', {}))[0]!.sessionId;
    expect(await gw.request('commands.run', { sessionKey: 's', text: '/reset' })).toMatchObject({ ok: false, notice: expect.stringMatching(/stop it first/) });
    await gw.request('commands.run', { sessionKey: 's', text: '/stop' });
    await gw.request('agent.wait', { runId });
    const reset = await gw.request('commands.run', { sessionKey: 's', text: '/reset' });
    expect(reset).toMatchObject({ ok: true, session: { sessionKey: 's', title: '' } });
    expect(reset!.session!.sessionId).not.toBe(before);
  });
});

describe('/reset keeps the earlier conversation (issue 18 item 4)', () => {
  it('as a chat of its own (listed, searchable, openable); undoReset puts the key back while the fresh one is empty', async () => {
    const { gw } = await open();
    await send(gw, 'r', 'the okapi question');
    const reset = await gw.request('commands.run', { sessionKey: 'r', text: '/reset' });
    expect(reset).toMatchObject({ command: 'reset', ok: true, kept: { title: 'Before reset: the okapi question' } });
    const keptKey = reset!.kept!.sessionKey;
    expect((await gw.request('sessions.search', { query: 'okapi' })).map((h) => h.sessionKey)).toEqual([keptKey]);
    const opened = await gw.request('sessions.open', { sessionKey: keptKey });
    expect(opened.history.find((e) => e.role === 'user')).toMatchObject({ text: 'the okapi question' });
    expect((await gw.request('sessions.open', { sessionKey: 'r' })).history).toEqual([]);
    // undo: the key is back on its conversation, the kept entry gone
    const back = await gw.request('sessions.undoReset', { sessionKey: 'r', keptKey });
    expect(back).toMatchObject({ sessionKey: 'r', title: 'the okapi question' });
    expect((await gw.request('sessions.list', {})).map((s) => s.sessionKey)).not.toContain(keptKey);
    expect((await gw.request('sessions.open', { sessionKey: 'r' })).history.find((e) => e.role === 'user')).toMatchObject({ text: 'the okapi question' });
    // once the fresh conversation has a message, going back is refused (it would be lost)
    const again = await gw.request('commands.run', { sessionKey: 'r', text: '/reset' });
    await send(gw, 'r', 'a new start');
    await expect(gw.request('sessions.undoReset', { sessionKey: 'r', keptKey: again!.kept!.sessionKey })).rejects.toThrow(/new messages since the reset/);
    // an empty conversation is not kept
    const empty = await gw.request('sessions.create', {});
    expect((await gw.request('commands.run', { sessionKey: empty.sessionKey, text: '/reset' }))!.kept).toBeUndefined();
  });
});

describe('session_start (E19)', () => {
  it('fires for every session that begins: a message to a new key, a chat created in the app, /new, /reset', async () => {
    const started: { sessionKey: string; sessionId: string }[] = [];
    const { gw } = await open({ session_start: (e) => void started.push(e) });
    await send(gw, 'by-message', 'hello');
    const created = await gw.request('sessions.create', {});
    const fresh = await gw.request('commands.run', { sessionKey: 'by-message', text: '/new' });
    const reset = await gw.request('commands.run', { sessionKey: 'by-message', text: '/reset' });
    await gw.request('sessions.reset', { sessionKey: created.sessionKey });
    await new Promise((r) => setTimeout(r, 20));
    expect(started.map((s) => s.sessionKey)).toEqual(['by-message', created.sessionKey, fresh!.session!.sessionKey, 'by-message', created.sessionKey]);
    expect(started[3]!.sessionId).toBe(reset!.session!.sessionId);
    expect(new Set(started.map((s) => s.sessionId)).size).toBe(5);
  });
});
