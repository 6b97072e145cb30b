/** Session management through the gateway (D3, E22): create, update, delete/undo, reset, search, export, open mid-run. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import type { AppGateway } from '../../main/gateway/create.js';
import { GatewayError } from '../../main/gateway/types.js';
import { applyEvents, historyToTurns } from '../../renderer/src/store/reduce.js';
import { toolLoopScenario } from '../fake/index.js';
import { useGatewayHarness } from '../support/gateway.js';

const gateways = useGatewayHarness();
const { fakes } = gateways;
const env = { FAKE_KEY: 'sk-ant-sessions-test' };

const open = () =>
  gateways.open({
    prefix: 'gws',
    env,
    files: { 'notes.txt': 'The secret word is aubergine.\n' },
    configJson: {
      providers: { fake: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: 5, models: [{ id: 'm1', reasoning: true }, { id: 'm2' }] } },
      authProfiles: [{ id: 'fake:test', provider: 'fake', apiKeyEnv: 'FAKE_KEY' }],
      agent: { model: { primary: 'fake/m1' } },
    },
  });

async function chat(gw: AppGateway, sessionKey: string, message: string) {
  const { runId } = await gw.request('agent', { message, sessionKey });
  expect((await gw.request('agent.wait', { runId })).status).toBe('ok');
}

describe('sessions.create / update', () => {
  it('a new chat gets its own key, remembers model and thinking, and the next run uses them', async () => {
    const { gw } = await open();
    const s = await gw.request('sessions.create', { model: 'fake/m2', thinking: 'low' });
    expect(s.sessionKey).toMatch(/^chat-\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(s).toMatchObject({ model: 'fake/m2', thinking: 'low', title: '' });
    const other = await gw.request('sessions.create', {});
    expect(other.sessionKey).not.toBe(s.sessionKey);
    await chat(gw, s.sessionKey, 'hello');
    expect(fakes.anthropic.requests.at(-1)!.body.model).toBe('m2');
    await gw.request('sessions.update', { sessionKey: s.sessionKey, model: 'fake/m1', thinking: null, title: '  My   chat ' });
    const listed = (await gw.request('sessions.list', {})).find((x) => x.sessionKey === s.sessionKey)!;
    expect(listed).toMatchObject({ title: 'My chat', model: 'fake/m1' });
    expect(listed.thinking).toBeUndefined();
  });

  it.each([
    ['sessions.create', { model: 'nope' }, /provider\/model/],
    ['sessions.update', { sessionKey: 'a', model: 'fake/' }, /^sessions.update: model: Invalid model "fake\/": expected "provider\/model"/],
    ['sessions.create', { model: 'fake/unknown' }, /unknown/i],
    ['sessions.update', { sessionKey: 'missing', title: 'x' }, /No session/],
    ['sessions.update', { sessionKey: 'x'.repeat(201) }, /too long/],
    ['sessions.open', { sessionKey: '' }, /empty/],
    ['sessions.search', { query: 5 }, /query/],
    ['sessions.export', { sessionKey: 'a', format: 'pdf' }, /format/],
    ['sessions.restore', { sessionKey: 'never-deleted' }, /no longer be restored/],
    ['sessions.delete', { sessionKey: 'a', extra: 1 }, /extra|unrecognized/i],
  ])('%s %j is refused', async (method, params, pattern) => {
    const { gw } = await open();
    const err = await gw.request(method as 'sessions.open', params as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as Error).message).toMatch(pattern);
  });
});

describe('sessions.delete / restore / reset', () => {
  it('delete hides the session and its transcript; restore brings both back', async () => {
    const { gw, home } = await open();
    await chat(gw, 'keep', 'first');
    await chat(gw, 'gone', 'second');
    const before = await gw.request('sessions.open', { sessionKey: 'gone' });
    const res = await gw.request('sessions.delete', { sessionKey: 'gone' });
    expect(res.deleted).toBe(true);
    expect(res.undoUntil).toBeGreaterThan(Date.now());
    expect((await gw.request('sessions.list', {})).map((s) => s.sessionKey)).toEqual(['keep']);
    expect((await readdir(join(home, 'sessions'))).filter((f) => f.endsWith('.deleted'))).toHaveLength(1);
    expect((await gw.request('sessions.delete', { sessionKey: 'gone' })).deleted).toBe(false);
    await gw.request('sessions.restore', { sessionKey: 'gone' });
    const after = await gw.request('sessions.open', { sessionKey: 'gone' });
    expect(after.history).toEqual(before.history);
    expect((await gw.request('sessions.list', {})).map((s) => s.sessionKey).sort()).toEqual(['gone', 'keep']);
  });

  it('a deleted session is purged when the gateway closes (undo window over)', async () => {
    const { gw, home } = await open();
    await chat(gw, 'gone', 'bye');
    await gw.request('sessions.delete', { sessionKey: 'gone' });
    await gateways.close(gw);
    expect((await readdir(join(home, 'sessions'))).filter((f) => f.includes('.jsonl'))).toEqual([]);
  });

  it('reset starts the key over, keeps model and thinking', async () => {
    const { gw } = await open();
    await chat(gw, 'r', 'remember this');
    await gw.request('sessions.update', { sessionKey: 'r', thinking: 'high' });
    const fresh = await gw.request('sessions.reset', { sessionKey: 'r' });
    expect(fresh).toMatchObject({ title: '', thinking: 'high', model: 'fake/m1', usage: { total: 0 } });
    expect((await gw.request('sessions.open', { sessionKey: 'r' })).history).toEqual([]);
  });
});

describe('sessions.search / export', () => {
  it('finds a word that only appears in a tool result, and titles', async () => {
    const { gw } = await open();
    fakes.anthropic.setDefault(toolLoopScenario({ toolName: 'read', args: { path: 'notes.txt' }, finalText: 'Done reading.' }));
    await chat(gw, 'tools', 'read my notes please');
    fakes.anthropic.setDefault({ text: 'ok' });
    await chat(gw, 'plain', 'talk about the weather');
    const hits = await gw.request('sessions.search', { query: 'AUBERGINE' });
    expect(hits).toEqual([{ sessionKey: 'tools', title: 'read my notes please', where: 'content', snippet: expect.stringContaining('aubergine') }]);
    expect((await gw.request('sessions.search', { query: 'weather' })).map((h) => [h.sessionKey, h.where])).toEqual([['plain', 'title']]);
    expect(await gw.request('sessions.search', { query: 'zzz-nothing' })).toEqual([]);
  });

  it('exports Markdown with the tool call and result, and JSON with the full history', async () => {
    const { gw } = await open();
    fakes.anthropic.setDefault(toolLoopScenario({ toolName: 'read', args: { path: 'notes.txt' }, thinking: 'Let me look.', finalText: 'It says aubergine.' }));
    await chat(gw, 'ex', 'What is the secret word?');
    const md = await gw.request('sessions.export', { sessionKey: 'ex', format: 'markdown' });
    expect(md.filename).toBe('what-is-the-secret-word.md');
    expect(md.content).toMatch(/^# What is the secret word\?/);
    expect(md.content).toContain('## You');
    expect(md.content).toContain('**Tool call** `read`');
    expect(md.content).toContain('The secret word is aubergine.');
    expect(md.content).toContain('It says aubergine.');
    expect(md.content).toContain('Let me look.');
    const json = await gw.request('sessions.export', { sessionKey: 'ex', format: 'json' });
    const parsed = JSON.parse(json.content) as { session: { sessionKey: string }; history: { role: string }[] };
    expect(parsed.session.sessionKey).toBe('ex');
    expect(parsed.history.map((h) => h.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
  });
});

describe('sessions.open while a run streams', () => {
  it('history stops before the active run; its events replay into exactly one streaming turn', async () => {
    const { gw, events } = await open();
    await chat(gw, 'live', 'earlier question');
    fakes.anthropic.enqueue({ text: 'a long streamed answer that takes a while', chunkSize: 2, delayMs: 25 });
    const { runId } = await gw.request('agent', { message: 'second question', sessionKey: 'live' });
    // wait until some text has streamed
    for (let i = 0; i < 200 && !events.some((e) => e.runId === runId && e.stream === 'assistant'); i++) await new Promise((r) => setTimeout(r, 10));
    const opened = await gw.request('sessions.open', { sessionKey: 'live' });
    expect(opened.history.map((h) => h.role)).toEqual(['user', 'assistant']);
    expect(opened.active).toMatchObject({ runId, message: 'second question' });
    // Deltas are merged: far fewer replay events than streamed ones, same text.
    const streamedSoFar = events.filter((e) => e.runId === runId && e.seq <= opened.active!.events.at(-1)!.seq);
    expect(opened.active!.events.length).toBeLessThanOrEqual(streamedSoFar.length);
    // A client rebuilding from the snapshot, then applying every live event (duplicates included) gets one turn.
    await gw.request('agent.wait', { runId });
    const turns = applyEvents(
      [...historyToTurns(opened.history), { kind: 'user', id: 'u', text: opened.active!.message, ts: 0 }],
      [...opened.active!.events, ...events.filter((e) => e.runId === runId)],
      'live',
    );
    const assistants = turns.filter((t) => t.kind === 'assistant');
    expect(assistants).toHaveLength(2);
    const last = assistants.at(-1)!;
    expect(last.kind === 'assistant' && last.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).toBe(
      'a long streamed answer that takes a while',
    );
    expect((await gw.request('sessions.open', { sessionKey: 'live' })).active).toBeNull();
  });

  it('an unknown session opens empty', async () => {
    const { gw } = await open();
    expect(await gw.request('sessions.open', { sessionKey: 'nothing-yet' })).toEqual({ session: null, history: [], omitted: 0, active: null });
  });

  it('limit returns the latest entries from a user message on, and how many were left out', async () => {
    const { gw } = await open();
    for (const m of ['one', 'two', 'three']) await chat(gw, 'long', m);
    const all = await gw.request('sessions.open', { sessionKey: 'long' });
    expect(all.omitted).toBe(0);
    const tail = await gw.request('sessions.open', { sessionKey: 'long', limit: 3 });
    expect(tail.history.map((h) => (h.role === 'user' ? h.text : h.role))).toEqual(['three', 'assistant']);
    expect(tail.omitted).toBe(4);
    expect(tail.history).toEqual(all.history.slice(4));
  });
});
