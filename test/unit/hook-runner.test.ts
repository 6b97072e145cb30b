import { describe, expect, it } from 'vitest';
import { HookRunner, HOOK_TIMEOUT_MS, VOID_HOOK_TIMEOUT_MS, type HookTimers } from '../../main/engine/attempt/hook-runner.js';
import { MAX_FINALIZE_REVISIONS, REVISION_PREFIX, revisionRequest } from '../../main/engine/attempt/finalize.js';
import type { ToolResultMessage } from '../../main/engine/messages.js';
import type { AgentEvent } from '../../preload/contract.js';
import { fireCompactionHooks } from '../../main/engine/run/run-hooks.js';

/** Manual timers: nothing fires until `advance`. */
function fakeTimers() {
  let now = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  let id = 0;
  const timers: HookTimers = {
    setTimeout: (fn, ms) => {
      pending.set(++id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (h) => void pending.delete(h as number),
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const [k, t] of [...pending]) {
      if (t.at <= now) {
        pending.delete(k);
        t.fn();
      }
    }
    await new Promise((r) => setImmediate(r));
  };
  return { timers, advance, pending };
}

function runner() {
  const t = fakeTimers();
  const logged: string[] = [];
  const r = new HookRunner({ timers: t.timers, log: (hook, err, source) => logged.push(`${source}:${hook}:${(err as Error).message}`) });
  return { r, logged, ...t };
}

const info = { runId: 'r', sessionKey: 's', toolCallId: 't', toolName: 'exec', params: { cmd: 'ls' } };
const never = () => new Promise<never>(() => undefined);

describe('HookRunner (E19)', () => {
  it('a hanging before_tool_call is abandoned after its budget; the call goes on', async () => {
    const { r, logged, advance } = runner();
    r.register('p1', { before_tool_call: never });
    let done: unknown;
    void r.beforeToolCall(info).then((d) => (done = d));
    await advance(HOOK_TIMEOUT_MS - 1);
    expect(done).toBeUndefined();
    await advance(1);
    expect(done).toEqual({ params: { cmd: 'ls' } });
    expect(logged).toEqual([`p1:before_tool_call:timed out after ${HOOK_TIMEOUT_MS} ms; the run goes on without it`]);
  });

  it('a throwing hook is logged and skipped; the others still run', async () => {
    const { r, logged } = runner();
    r.register('bad', { before_tool_call: () => { throw new Error('boom'); } });
    r.register('good', { before_tool_call: (i) => ({ params: { ...i.params, safe: true } }) });
    expect(await r.beforeToolCall(info)).toEqual({ params: { cmd: 'ls', safe: true } });
    expect(logged).toEqual(['bad:before_tool_call:boom']);
  });

  it.each<[string, Parameters<HookRunner['register']>[1][], unknown]>([
    ['params chain', [{ before_tool_call: (i) => ({ params: { ...i.params, a: 1 } }) }, { before_tool_call: (i) => ({ params: { ...i.params, b: 2 } }) }], { params: { cmd: 'ls', a: 1, b: 2 } }],
    ['block is terminal', [{ before_tool_call: () => ({ block: true, reason: 'no' }) }, { before_tool_call: () => ({ block: false }) }], { params: { cmd: 'ls' }, block: true, reason: 'no' }],
    ['block: false clears nothing', [{ before_tool_call: () => ({ block: false }) }], { params: { cmd: 'ls' } }],
  ])('before_tool_call: %s', async (_name, sets, expected) => {
    const { r } = runner();
    sets.forEach((h, i) => r.register(`p${i}`, h));
    expect(await r.beforeToolCall(info)).toEqual(expected);
  });

  it.each<[string, Parameters<HookRunner['register']>[1][], unknown]>([
    ['before_model_resolve wins over legacy before_agent_start', [{ before_agent_start: () => ({ providerOverride: 'old', modelOverride: 'old-m' }) }, { before_model_resolve: () => ({ modelOverride: 'new-m' }) }], { providerOverride: 'old', modelOverride: 'new-m' }],
    ['legacy alone still works', [{ before_agent_start: () => ({ modelOverride: 'x' }) }], { modelOverride: 'x' }],
    ['first override set wins', [{ before_model_resolve: () => ({ modelOverride: 'a' }) }, { before_model_resolve: () => ({ modelOverride: 'b' }) }], { modelOverride: 'a' }],
  ])('resolveModel: %s', async (_name, sets, expected) => {
    const { r } = runner();
    sets.forEach((h, i) => r.register(`p${i}`, h));
    expect(await r.resolveModel({ prompt: 'hi', provider: 'p', model: 'm' }, {})).toEqual(expected);
  });

  it('priority orders handlers', async () => {
    const { r } = runner();
    r.register('low', { before_model_resolve: () => ({ modelOverride: 'low' }) }, 0);
    r.register('high', { before_model_resolve: () => ({ modelOverride: 'high' }) }, 10);
    expect((await r.resolveModel({ prompt: '', provider: 'p', model: 'm' }, {})).modelOverride).toBe('high');
  });

  it('before_prompt_build joins contexts and the last systemPrompt wins', async () => {
    const { r } = runner();
    r.register('a', { before_prompt_build: () => ({ systemPrompt: 'A', appendSystemContext: 'x' }) });
    r.register('b', { before_prompt_build: () => ({ systemPrompt: 'B', appendSystemContext: 'y', prependContext: 'p' }) });
    expect(await r.buildPrompt({ prompt: '', systemPrompt: '', messages: [] }, {})).toEqual({ systemPrompt: 'B', appendSystemContext: 'x\n\ny', prependContext: 'p' });
  });

  it('message_sending: content chains, cancel is terminal', async () => {
    const { r } = runner();
    r.register('a', { message_sending: (e) => ({ content: `${e.content}!` }) });
    r.register('b', { message_sending: () => ({ cancel: true }) });
    r.register('c', { message_sending: () => ({ content: 'never' }) });
    expect(await r.messageSending({ content: 'hi', isError: false }, {})).toEqual({ content: 'hi!', cancel: true });
  });

  it('before_agent_finalize: finalize overrides any revise', async () => {
    const { r } = runner();
    r.register('a', { before_agent_finalize: () => ({ action: 'revise', reason: 'add tests' }) });
    r.register('b', { before_agent_finalize: () => ({ action: 'finalize' }) });
    expect(await r.finalize({ finalText: 'x', revisions: 0 }, {})).toEqual({ action: 'finalize' });
  });

  it.each([
    [0, false, `${REVISION_PREFIX} add tests`],
    [MAX_FINALIZE_REVISIONS - 1, false, `${REVISION_PREFIX} add tests`],
    [MAX_FINALIZE_REVISIONS, false, undefined],
    [0, true, undefined],
  ])('revisionRequest after %d revisions (aborted %s)', async (revisions, aborted, expected) => {
    const { r } = runner();
    r.register('a', { before_agent_finalize: () => ({ action: 'revise', reason: 'add tests' }) });
    expect(await revisionRequest(r, { finalText: 'x', revisions, aborted }, {})).toBe(expected);
  });

  it('tool_result_persist is synchronous: a returned promise is ignored, a sync rewrite applies', () => {
    const { r, logged } = runner();
    const msg: ToolResultMessage = { role: 'toolResult', toolCallId: 't', toolName: 'read', content: 'secret=1', isError: false, timestamp: 1 };
    r.register('async', { tool_result_persist: (async () => ({ message: { ...msg, content: 'late' } })) as never });
    r.register('redact', { tool_result_persist: (e) => ({ message: { ...e.message, content: e.message.content.replace(/secret=\d/, 'secret=***') } }) });
    expect(r.persistToolResult(msg, {}).content).toBe('secret=***');
    expect(logged[0]).toMatch(/^async:tool_result_persist:returned a promise/);
  });

  it('fire-and-forget hooks run in parallel and are time-boxed', async () => {
    const { r, logged, advance } = runner();
    const seen: string[] = [];
    r.register('slow', { agent_end: never });
    r.register('fast', { agent_end: (e) => void seen.push(e.status) });
    let settled = false;
    void r.fire('agent_end', { status: 'ok', durationMs: 1, messages: [] }, {}).then(() => (settled = true));
    await advance(0);
    expect(seen).toEqual(['ok']);
    expect(settled).toBe(false);
    await advance(VOID_HOOK_TIMEOUT_MS);
    expect(settled).toBe(true);
    expect(logged).toEqual([`slow:agent_end:timed out after ${VOID_HOOK_TIMEOUT_MS} ms; the run goes on without it`]);
  });
});

describe('compaction hooks follow the compaction events', () => {
  it('start → before_compaction, end → after_compaction; other streams are ignored', async () => {
    const { r } = runner();
    const seen: unknown[] = [];
    r.register('p', {
      before_compaction: (e, ctx) => void seen.push(['before', e, ctx.runId]),
      after_compaction: (e, ctx) => void seen.push(['after', e, ctx.sessionKey]),
    });
    const ev = (stream: AgentEvent['stream'], data: AgentEvent['data']): AgentEvent => ({ type: 'event', runId: 'r1', sessionKey: 's1', seq: 0, stream, data, ts: 0 });
    fireCompactionHooks(r, ev('compaction', { phase: 'start', reason: 'overflow' }));
    fireCompactionHooks(r, ev('compaction', { phase: 'end', reason: 'overflow', tokensBefore: 900, tokensAfter: 300 }));
    fireCompactionHooks(r, ev('assistant', { delta: 'x', text: 'x' }));
    await new Promise((res) => setImmediate(res));
    expect(seen).toEqual([
      ['before', { reason: 'overflow' }, 'r1'],
      ['after', { reason: 'overflow', tokensBefore: 900, tokensAfter: 300 }, 's1'],
    ]);
  });
});
