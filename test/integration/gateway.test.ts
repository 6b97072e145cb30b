/** The gateway (E1, E2, E3 core, E22 core) in-process, with the real SDKs against the fake servers. */
import { appendFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import { GatewayError } from '../../main/gateway/types.js';
import { tempDir } from '../support/cli.js';
import { useGatewayHarness } from '../support/gateway.js';

const gateways = useGatewayHarness();
const { fakes } = gateways;
const env = { FAKE_KEY: 'sk-ant-gateway-test' };

const open = (extra: Record<string, unknown> = {}) =>
  gateways.open({
    prefix: 'gw',
    env,
    configJson: {
      providers: { fake: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: 5, models: [{ id: 'm1', reasoning: true }] } },
      authProfiles: [{ id: 'fake:test', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/m1' }, ...extra },
    },
  });

describe('agent / agent.wait', () => {
  it('returns {runId, acceptedAt} at once while the run continues in the background', async () => {
    const { gw, events } = await open();
    fakes.anthropic.enqueue({ text: 'slow reply', chunkSize: 2, delayMs: 30 });
    const accepted = await gw.request('agent', { message: 'hi' });
    expect(accepted.runId).toMatch(/[0-9a-f-]{36}/);
    expect(typeof accepted.acceptedAt).toBe('number');
    expect(events.some((e) => e.runId === accepted.runId && e.stream === 'lifecycle' && (e.data as { phase: string }).phase === 'end')).toBe(false);
    const waited = await gw.request('agent.wait', { runId: accepted.runId });
    expect(waited.status).toBe('ok');
    expect(waited.endedAt! >= waited.startedAt!).toBe(true);
    const result = await gw.request('agent.result', { runId: accepted.runId });
    expect(result?.payloads).toEqual([{ text: 'slow reply' }]);
  });

  it('a wait that times out reports timeout and does not stop the run', async () => {
    const { gw } = await open();
    fakes.anthropic.enqueue({ text: 'takes a while', chunkSize: 1, delayMs: 20 });
    const { runId } = await gw.request('agent', { message: 'hi' });
    expect((await gw.request('agent.wait', { runId, timeoutMs: 20 })).status).toBe('timeout');
    expect((await gw.request('agent.wait', { runId, timeoutMs: 10_000 })).status).toBe('ok');
  });

  it('an idempotencyKey seen before returns the same runId and starts nothing', async () => {
    const { gw } = await open();
    const a = await gw.request('agent', { message: 'hi', idempotencyKey: 'k1' });
    const b = await gw.request('agent', { message: 'hi', idempotencyKey: 'k1' });
    expect(b).toEqual(a);
    await gw.request('agent.wait', { runId: a.runId });
    expect(fakes.anthropic.requests).toHaveLength(1);
  });

  it('agent.abort stops a stalled run; the transcript stays valid for the next turn', async () => {
    const { gw } = await open();
    fakes.anthropic.enqueue({ text: 'partial', toolCalls: [{ name: 'list', arguments: {} }], fault: { kind: 'stall', afterEvents: 6 } });
    const { runId, sessionId } = await gw.request('agent', { message: 'first' });
    // Abort once the stalled request is at the server (a fixed delay can come first on a loaded machine, and the
    // stall would then hit the next run instead).
    for (let i = 0; i < 200 && fakes.anthropic.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 50));
    expect(await gw.request('agent.abort', { runId })).toEqual({ aborted: true });
    const waited = await gw.request('agent.wait', { runId });
    expect(waited.status).toBe('error');
    expect(waited.error).toMatch(/stopped/);
    fakes.anthropic.enqueue({ text: 'fine again' });
    const next = await gw.request('agent', { message: 'second' });
    expect(next.sessionId).toBe(sessionId);
    expect((await gw.request('agent.wait', { runId: next.runId })).status).toBe('ok');
    // The aborted assistant turn (with its half-made tool call) is not sent; both user messages are.
    const sent = fakes.anthropic.requests.at(-1)!.body.messages;
    expect(JSON.stringify(sent)).not.toContain('tool_use');
    expect(JSON.stringify(sent)).toContain('first');
    expect(JSON.stringify(sent)).toContain('second');
    const history = await gw.request('sessions.history', { sessionKey: 'main' });
    expect(history.map((h) => h.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('runs of one session are serial: the second sees the first one\'s answer', async () => {
    const { gw } = await open();
    fakes.anthropic.enqueue({ text: 'answer one', chunkSize: 3, delayMs: 10 }, { text: 'answer two' });
    const a = await gw.request('agent', { message: 'one' });
    const b = await gw.request('agent', { message: 'two' });
    await gw.request('agent.wait', { runId: b.runId });
    expect((await gw.request('agent.wait', { runId: a.runId })).status).toBe('ok');
    expect(JSON.stringify(fakes.anthropic.requests[1]!.body.messages)).toContain('answer one');
  });

  it('every event carries its runId and a gapless seq per run', async () => {
    const { gw, events } = await open();
    const a = await gw.request('agent', { message: 'x', sessionKey: 's1' });
    const b = await gw.request('agent', { message: 'y', sessionKey: 's2' });
    await Promise.all([gw.request('agent.wait', { runId: a.runId }), gw.request('agent.wait', { runId: b.runId })]);
    for (const runId of [a.runId, b.runId]) {
      const seqs = events.filter((e) => e.runId === runId).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i));
    }
  });
});

describe('validation', () => {
  it.each([
    ['agent', {}, /message/],
    ['agent', { message: '   ' }, /empty/],
    ['agent', { message: 'x', thinking: 'max' }, /thinking/],
    ['agent', { message: 'x', model: 'nope' }, /provider\/model/],
    ['agent', { message: 'x', model: 'fake/m 1' }, /^agent: model: Invalid model "fake\/m 1": expected "provider\/model"/],
    ['agent', { message: 'x', model: 'fake/unknown' }, /unknown/i],
    ['agent', { message: 'x', extra: 1 }, /extra|unrecognized/i],
    ['agent.wait', { runId: 'missing' }, /No run/],
  ])('%s %j is refused', async (method, params, pattern) => {
    const { gw } = await open();
    const err = await gw.request(method as 'agent', params).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as Error).message).toMatch(pattern);
  });

  it('unknown methods are refused', async () => {
    const { gw } = await open();
    await expect(gw.request('shell.exec' as 'agent', {})).rejects.toMatchObject({ code: 'unknown_method' });
    await expect(gw.request('__proto__' as 'agent', {})).rejects.toMatchObject({ code: 'unknown_method' });
  });
});

describe('sessions', () => {
  it('lists sessions with usage totals and survives a torn last transcript line', async () => {
    const { gw, home } = await open();
    fakes.anthropic.enqueue({ text: 'one', usage: { input: 100, output: 10 } });
    const first = await gw.request('agent', { message: 'remember: blue' });
    await gw.request('agent.wait', { runId: first.runId });
    const [summary] = await gw.request('sessions.list', {});
    expect(summary).toMatchObject({ sessionKey: 'main', title: 'remember: blue', model: 'fake/m1' });
    expect(summary!.usage.output).toBe(10);
    // Simulate a crash mid-write: a torn JSON line at the end of the transcript, then a restart.
    await gateways.close(gw);
    const dir = join(home, 'sessions');
    const file = (await readdir(dir)).find((f) => f.endsWith('.jsonl'))!;
    await appendFile(join(dir, file), '{"type":"message","message":{"role":"user","con');
    const gw2 = await gateways.start({ home, workspace: gw.workspace, env });
    fakes.anthropic.enqueue({ text: 'two' });
    const second = await gw2.request('agent', { message: 'what colour?' });
    expect((await gw2.request('agent.wait', { runId: second.runId })).status).toBe('ok');
    const sent = JSON.stringify(fakes.anthropic.requests.at(-1)!.body.messages);
    expect(sent).toContain('remember: blue');
    const history = await gw2.request('sessions.history', { sessionKey: 'main' });
    expect(history.map((h) => h.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('the demo model is listed, needs no key, and is the default without keys', async () => {
    const home = await tempDir('gw-home');
    const gateway = await gateways.start({ home, workspace: await tempDir('gw-ws'), env: {} });
    const models = await gateway.request('models.list', {});
    expect(models.find((m) => m.ref === 'demo/agent')).toMatchObject({ demo: true, hasKey: true });
    expect((await gateway.request('app.info', {})).defaultModel).toBe('demo/agent');
    const { runId } = await gateway.request('agent', { message: 'hi' });
    expect((await gateway.request('agent.wait', { runId })).status).toBe('ok');
  });

  it('a missing key is a clear run error, not a crash', async () => {
    const home = await tempDir('gw-home');
    const gateway = await gateways.start({
      home,
      workspace: await tempDir('gw-ws'),
      env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' },
      openSecrets: async () => {
        throw Object.assign(new Error('No OS keychain is available: no D-Bus session'), { name: 'KeychainUnavailableError' });
      },
    });
    const { runId } = await gateway.request('agent', { message: 'hi', model: 'anthropic/claude-sonnet-4-5' });
    const waited = await gateway.request('agent.wait', { runId });
    expect(waited.status).toBe('error');
    // Without a keychain `auth add` could not store a key: the environment variable is the way.
    expect(waited.error).toBe('No API key for provider "anthropic": set ANTHROPIC_API_KEY. (No OS keychain is available: no D-Bus session; keys cannot be stored until it is.)');
  });
});
