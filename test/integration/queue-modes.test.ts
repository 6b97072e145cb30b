/**
 * E3 queue modes, lanes and the runs registry through the gateway, with the real SDKs against the fake servers
 * (which record every request, so the tests read exactly what the model was sent).
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, QueueData } from '../../preload/contract.js';
import type { AppGateway } from '../../main/gateway/create.js';
import type { EngineHooks } from '../../main/engine/attempt/hooks.js';
import { SKIPPED_FOR_STEER } from '../../main/engine/attempt/steer.js';
import { trailingToolResults, type RecordedRequest } from '../fake/index.js';
import { useGatewayHarness } from '../support/gateway.js';

const gateways = useGatewayHarness({ openai: true });
const { fakes } = gateways;
const env = { FAKE_KEY: 'sk-ant-queue-test', FAKE_OAI_KEY: 'sk-oai-queue-test' };

async function open(agent: Record<string, unknown> = {}, hooks?: EngineHooks) {
  const { gw, events, home } = await gateways.open({
    prefix: 'q',
    env,
    ...(hooks ? { hooks } : {}),
    configJson: {
      providers: {
        fake: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: 5, models: [{ id: 'm1' }] },
        fakeoai: { api: 'openai-chat', baseUrl: fakes.openai.baseUrl, timeoutSeconds: 5, models: [{ id: 'g1' }] },
      },
      authProfiles: [
        { id: 'fake:test', provider: 'fake', apiKeyEnv: 'FAKE_KEY' },
        { id: 'fakeoai:test', provider: 'fakeoai', apiKeyEnv: 'FAKE_OAI_KEY' },
      ],
      agent: { model: { primary: 'fake/m1' }, ...agent },
    },
  });
  const queueEvents = (runId: string) => events.filter((e) => e.runId === runId && e.stream === 'queue').map((e) => e.data as QueueData);
  /** Resolves once the run has started (its lifecycle start event), however slow the machine is. */
  const started = async (runId: string) => {
    while (!events.some((e) => e.runId === runId && e.stream === 'lifecycle')) await new Promise((r) => setTimeout(r, 10));
  };
  return { gw, events, queueEvents, started, home };
}

/** The conversation of an Anthropic request as [role, text] pairs (tool results as "result:…"). */
function conversation(req: RecordedRequest): [string, string][] {
  return (req.body.messages as { role: string; content: string | { type: string; text?: string; content?: string }[] }[]).map((m) => [
    m.role,
    typeof m.content === 'string'
      ? m.content
      : m.content.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? `result:${b.content}` : b.type === 'tool_use' ? 'tool_use' : b.type)).join(' | '),
  ]);
}

const slow = (text: string) => ({ text, chunkSize: 1, delayMs: 60 });
const wait = (gw: AppGateway, runId: string) => gw.request('agent.wait', { runId, timeoutMs: 20_000 });

describe('queue modes', () => {
  it('followup: a message for a busy session runs after it, and its request carries the first turn', async () => {
    const { gw, queueEvents } = await open();
    fakes.anthropic.enqueue(slow('first answer'), { text: 'second answer' });
    const a = await gw.request('agent', { message: 'one' });
    const b = await gw.request('agent', { message: 'two', queueMode: 'followup' });
    expect((await wait(gw, b.runId)).status).toBe('ok');
    // (a 'waiting' event may come in between on a loaded machine: the wait is reported after 2 s)
    expect(queueEvents(b.runId).map((d) => d.phase).filter((p) => p !== 'waiting')).toEqual(['queued', 'started']);
    expect(queueEvents(b.runId)[0]).toEqual({ phase: 'queued', mode: 'followup', position: 1 });
    expect(queueEvents(a.runId)).toEqual([]);
    expect(conversation(fakes.anthropic.requests[1]!)).toEqual([
      ['user', 'one'],
      ['assistant', 'first answer'],
      ['user', 'two'],
    ]);
  });

  it('collect: messages queued while busy become one merged turn; every caller gets its answer', async () => {
    const { gw, queueEvents, started } = await open({ queueMode: 'collect' });
    fakes.anthropic.enqueue(slow('busy'), { text: 'merged answer' });
    const a = await gw.request('agent', { message: 'start' });
    await started(a.runId); // the session is busy with a running run (not one still waiting for its lock)
    const b = await gw.request('agent', { message: 'two' });
    const c = await gw.request('agent', { message: 'three' });
    const d = await gw.request('agent', { message: 'four' });
    const list = await gw.request('queue.list', {});
    expect(list).toMatchObject([{ runId: b.runId, mode: 'collect', merged: 3, preview: 'two\n\nthree\n\nfour', stage: 'session' }]);
    const results = await Promise.all([b, c, d].map((r) => wait(gw, r.runId)));
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(fakes.anthropic.requests).toHaveLength(2);
    expect(conversation(fakes.anthropic.requests[1]!).at(-1)).toEqual(['user', 'two\n\nthree\n\nfour']);
    expect(queueEvents(c.runId)).toEqual([{ phase: 'merged', intoRunId: b.runId }]);
    const cResult = await gw.request('agent.result', { runId: c.runId });
    expect(cResult).toMatchObject({ runId: c.runId, status: 'ok', payloads: [{ text: 'merged answer' }] });
    expect((await wait(gw, a.runId)).status).toBe('ok');
  });

  it('collect caps a merged turn at 20 messages; the rest start the next merged turn', async () => {
    const { gw } = await open({ queueMode: 'collect' });
    fakes.anthropic.enqueue(slow('busy'), { text: 'first 20' }, { text: 'the rest' });
    await gw.request('agent', { message: 'start' });
    const accepted = [];
    for (let i = 1; i <= 22; i++) accepted.push(await gw.request('agent', { message: `m${i}` }));
    const results = await Promise.all(accepted.map((a) => wait(gw, a.runId)));
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    expect(fakes.anthropic.requests).toHaveLength(3);
    const merged = (i: number) => conversation(fakes.anthropic.requests[i]!).filter(([r]) => r === 'user').at(-1)![1];
    expect(merged(1)).toBe(Array.from({ length: 20 }, (_, i) => `m${i + 1}`).join('\n\n'));
    expect(merged(2)).toBe('m21\n\nm22');
  });

  it('collect waits for the debounce after the last merged message before it starts', async () => {
    const { gw, events, queueEvents } = await open({ queueMode: 'collect' });
    fakes.anthropic.enqueue({ text: 'quick' }, { text: 'merged' });
    const a = await gw.request('agent', { message: 'start' });
    const b = await gw.request('agent', { message: 'x' });
    await wait(gw, a.runId);
    const c = await gw.request('agent', { message: 'y' }); // b is normally still in its debounce: merged into it
    expect((await wait(gw, c.runId)).status).toBe('ok');
    // On a very slow machine b may have started before c arrived; either way b starts ≥ 500 ms after its last message.
    const merged = queueEvents(c.runId)[0]?.phase === 'merged';
    const bStart = events.find((e) => e.runId === b.runId && e.stream === 'lifecycle')!.ts;
    expect(bStart - (merged ? c.acceptedAt : b.acceptedAt)).toBeGreaterThanOrEqual(450);
    expect(conversation(fakes.anthropic.requests[1]!).at(-1)).toEqual(['user', merged ? 'x\n\ny' : 'x']);
  });

  it('steer lands inside a running tool loop: unstarted calls are skipped and the message goes in after the results', async () => {
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const toolStarted = new Promise<void>((r) => (started = r));
    const { gw, queueEvents } = await open(
      {},
      {
        before_tool_call: async (info) => {
          if (info.toolName !== 'list') return;
          started();
          await gate;
        },
      },
    );
    fakes.anthropic.enqueue(
      { toolCalls: [{ name: 'list', arguments: {} }, { name: 'read', arguments: { path: 'nothing.txt' } }] },
      { text: 'steered answer' },
    );
    const a = await gw.request('agent', { message: 'look around' });
    await toolStarted;
    const s = await gw.request('agent.steer', { sessionKey: 'main', message: 'actually, stop and say hi' });
    expect(s).toEqual({ status: 'steered', runId: expect.any(String), intoRunId: a.runId });
    release();
    expect((await wait(gw, a.runId)).status).toBe('ok');
    expect(fakes.anthropic.requests).toHaveLength(2);
    const convo = conversation(fakes.anthropic.requests[1]!);
    expect(convo.at(-1)![0]).toBe('user');
    expect(convo.at(-1)![1]).toMatch(/^result:.* \| result:skipped: a new message arrived \| actually, stop and say hi$/);
    expect(trailingToolResults(fakes.anthropic.requests[1]!)).toContain(SKIPPED_FOR_STEER);
    if (s.status !== 'steered') throw new Error('not steered');
    expect(queueEvents(s.runId)).toEqual([{ phase: 'steered', intoRunId: a.runId }]);
    expect(await gw.request('agent.result', { runId: s.runId })).toMatchObject({ status: 'ok', payloads: [{ text: 'steered answer' }] });
  });

  it('steer that the run cannot take (its reply has no tool calls) becomes a followup, never dropped', async () => {
    const { gw, queueEvents, started } = await open({ queueMode: 'steer' });
    fakes.anthropic.enqueue(slow('no tools here'), { text: 'followup answer' });
    const a = await gw.request('agent', { message: 'one' });
    await started(a.runId);
    const b = await gw.request('agent', { message: 'two' });
    expect((await wait(gw, b.runId)).status).toBe('ok');
    expect(queueEvents(b.runId).map((d) => d.phase).filter((p) => p !== 'waiting')).toEqual(['steered', 'queued', 'started']);
    expect(fakes.anthropic.requests).toHaveLength(2);
    expect(conversation(fakes.anthropic.requests[1]!).at(-1)).toEqual(['user', 'two']);
    expect(await gw.request('agent.result', { runId: b.runId })).toMatchObject({ payloads: [{ text: 'followup answer' }] });
    expect((await wait(gw, a.runId)).status).toBe('ok');
  });

  it('interrupt: the running run is aborted, the new message runs next and the model sees the first got no reply', async () => {
    const { gw, started } = await open();
    fakes.anthropic.enqueue({ text: 'never finished', chunkSize: 1, delayMs: 200 }, { text: 'interrupt answer' });
    const a = await gw.request('agent', { message: 'long task' });
    await started(a.runId);
    await new Promise((r) => setTimeout(r, 100));
    const b = await gw.request('agent', { message: 'do this instead', queueMode: 'interrupt' });
    const aWait = await wait(gw, a.runId);
    expect(aWait.status).toBe('error');
    expect(aWait.error).toMatch(/interrupted/);
    expect((await wait(gw, b.runId)).status).toBe('ok');
    const convo = conversation(fakes.anthropic.requests[1]!);
    expect(convo.map(([role]) => role)).toEqual(['user', 'assistant', 'user']);
    expect(convo[0]).toEqual(['user', 'long task']);
    expect(convo[1]![1]).toMatch(/^(never|\(no reply: the run was stopped\))/);
    expect(convo[2]).toEqual(['user', 'do this instead']);
  });
});

describe('queue control', () => {
  it('an aborted queued run never starts and writes nothing; queue.remove does the same', async () => {
    const { gw, queueEvents, started } = await open();
    fakes.anthropic.enqueue(slow('only run'));
    const a = await gw.request('agent', { message: 'one' });
    await started(a.runId);
    const b = await gw.request('agent', { message: 'two' });
    const c = await gw.request('agent', { message: 'three' });
    expect((await gw.request('queue.list', { sessionKey: 'main' })).map((e) => e.runId)).toEqual([b.runId, c.runId]);
    expect(await gw.request('agent.abort', { runId: b.runId })).toEqual({ aborted: true });
    expect(await gw.request('queue.remove', { runId: c.runId })).toEqual({ removed: true });
    expect(await gw.request('queue.remove', { runId: a.runId })).toEqual({ removed: false }); // running
    const [bw, cw] = await Promise.all([wait(gw, b.runId), wait(gw, c.runId)]);
    expect(bw).toMatchObject({ status: 'error', error: expect.stringMatching(/stopped before it started/) });
    expect(cw).toMatchObject({ status: 'error', error: expect.stringMatching(/removed/) });
    expect(queueEvents(b.runId).map((d) => d.phase).filter((p) => p !== 'waiting')).toEqual(['queued', 'removed']);
    expect((await wait(gw, a.runId)).status).toBe('ok');
    await new Promise((r) => setTimeout(r, 50));
    expect(fakes.anthropic.requests).toHaveLength(1);
    const history = await gw.request('sessions.history', { sessionKey: 'main' });
    expect(history.map((h) => (h.role === 'user' ? h.text : h.role))).toEqual(['one', 'assistant']);
  });

  it('runs.abort stops every run of a session; validation refuses an ambiguous request', async () => {
    const { gw } = await open();
    fakes.anthropic.enqueue(slow('long one'));
    const a = await gw.request('agent', { message: 'one' });
    const b = await gw.request('agent', { message: 'two' });
    await new Promise((r) => setTimeout(r, 100));
    expect(await gw.request('runs.abort', { sessionKey: 'main' })).toEqual({ aborted: 2 });
    expect((await wait(gw, a.runId)).status).toBe('error');
    expect((await wait(gw, b.runId)).status).toBe('error');
    await expect(gw.request('runs.abort', { runId: 'x', scope: 'all' })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(gw.request('agent', { message: 'x', queueMode: 'later' })).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('two concurrent agent calls with one idempotencyKey start one run', async () => {
    const { gw } = await open();
    const [x, y] = await Promise.all([
      gw.request('agent', { message: 'hi', idempotencyKey: 'same' }),
      gw.request('agent', { message: 'hi', idempotencyKey: 'same' }),
    ]);
    expect(y).toEqual(x);
    await wait(gw, x.runId);
    expect(fakes.anthropic.requests).toHaveLength(1);
  });

  it('50 concurrent runs never exceed the global bound', async () => {
    const { gw, events } = await open({ maxConcurrent: 4 });
    fakes.anthropic.setDefault({ text: 'ok', chunkSize: 1, delayMs: 5 });
    const accepted = await Promise.all(Array.from({ length: 50 }, (_, i) => gw.request('agent', { message: `m${i}`, sessionKey: `s${i}` })));
    const results = await Promise.all(accepted.map((a) => wait(gw, a.runId)));
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    let active = 0;
    let peak = 0;
    for (const e of events) {
      if (e.stream !== 'lifecycle') continue;
      active += (e.data as { phase: string }).phase === 'start' ? 1 : -1;
      peak = Math.max(peak, active);
    }
    expect(peak).toBe(4);
  }, 60_000);
});

describe.each([
  ['anthropic', 'fake/m1', () => fakes.anthropic],
  ['openai', 'fakeoai/g1', () => fakes.openai],
])('unanswered turns (%s)', (_name, model, fake) => {
  it('after a timeout the next request is not merged with the abandoned prompt: the model sees it got no reply', async () => {
    const { gw } = await open();
    fake().enqueue({ fault: { kind: 'hang' } }, { text: 'fine' });
    const a = await gw.request('agent', { message: 'hang', model, timeoutSeconds: 1 });
    expect((await wait(gw, a.runId)).status).toBe('timeout');
    const b = await gw.request('agent', { message: 'plain again', model });
    expect((await wait(gw, b.runId)).status).toBe('ok');
    const sent = fake().requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    const flat = sent.filter((m) => m.role !== 'system').map((m) => [m.role, JSON.stringify(m.content)]);
    expect(flat.map(([role]) => role)).toEqual(['user', 'assistant', 'user']);
    expect(flat[0]![1]).toContain('hang');
    expect(flat[0]![1]).not.toContain('plain again');
    expect(flat[1]![1]).toContain('(no reply: the run timed out)');
    expect(flat[2]![1]).toContain('plain again');
    // The failed turn stays in the transcript, marked.
    const history = await gw.request('sessions.history', { sessionKey: 'main' });
    const hangTurn = history.slice(0, history.findIndex((h) => h.role === 'user' && h.text === 'plain again'));
    expect(hangTurn[0]).toMatchObject({ role: 'user', text: 'hang' });
    expect(hangTurn.at(-1)).toMatchObject({ role: 'assistant', errorMessage: expect.stringMatching(/timed out/) });
    expect(history.at(-1)).toMatchObject({ role: 'assistant', text: 'fine' });
  });
});
