/**
 * The outer loop (E7) with the real auth pool and state file in a temp home, the real session store, and an
 * in-memory scripted stream standing in for the provider (the SDK paths are covered by test/integration/failover).
 * Timers are injected: sleeps resolve at once and their lengths are recorded.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent, RetryData } from '../../preload/contract.js';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef } from '../../main/providers/types.js';
import { configSchema, type AppConfigInput } from '../../main/engine/config/schema.js';
import { SessionStore } from '../../main/sessions/store.js';
import { AuthPool } from '../../main/auth/pool.js';
import { AuthStateStore } from '../../main/auth/state-store.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { contextWarning, runOuterLoop, type LoopDeps } from '../../main/engine/run/outer-loop.js';
import type { Timers } from '../../main/engine/run/backoff.js';
import { createWorkspaceTools } from '../../main/tools/index.js';
import { scriptedStream, type ScriptedTurn } from '../support/scripted-stream.js';

/** What the run said (replies and posts, not tool summaries). */
const said = (out: { parts: { kind: string; text: string }[] }) => out.parts.filter((p) => p.kind !== 'tool').map((p) => p.text);

const primary: ModelDef = { provider: 'p', id: 'one', api: 'anthropic', contextWindow: 100_000, maxTokens: 1000, reasoning: false };
const backup: ModelDef = { provider: 'q', id: 'two', api: 'openai-chat', contextWindow: 100_000, maxTokens: 1000, reasoning: false };

const httpError = (status: number, message: string, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`${status} ${message}`), { status, headers });

const CONFIG: AppConfigInput = {
  providers: {
    p: { api: 'anthropic', baseUrl: 'http://127.0.0.1:9', models: [{ id: 'one' }] },
    q: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:9', models: [{ id: 'two' }] },
  },
  authProfiles: [
    { id: 'p:work', provider: 'p', apiKeyEnv: 'P_WORK' },
    { id: 'p:personal', provider: 'p', apiKeyEnv: 'P_PERSONAL' },
    { id: 'q:main', provider: 'q', apiKeyEnv: 'Q_MAIN' },
  ],
};
const ENV = { P_WORK: 'key-work', P_PERSONAL: 'key-personal', Q_MAIN: 'key-q' };

let home: string;
let clock: number;
beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-loop-')));
  clock = 1_000_000;
});

function pool(env: Record<string, string> = ENV, config: AppConfigInput = CONFIG) {
  return new AuthPool({
    config: configSchema.parse(config),
    env,
    openSecrets: () => Promise.reject(new Error('no keychain in this test')),
    state: new AuthStateStore(join(home, 'auth-state.json')),
    now: () => clock,
  });
}

async function run(
  turns: ScriptedTurn[],
  opts: { models?: ModelDef[]; deps?: Partial<LoopDeps>; env?: Record<string, string>; signal?: AbortSignal; history?: Message[] } = {},
) {
  const store = new SessionStore(join(home, 'sessions'));
  const session = await store.resolve('main');
  const user: Message = { role: 'user', content: 'hi', timestamp: 1 };
  const history = opts.history ?? [];
  await store.append(session.sessionId, ...history, user);
  const events: AgentEvent[] = [];
  const waits: number[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      waits.push(ms);
      clock += ms;
      queueMicrotask(fn);
      return 0;
    },
    clearTimeout: () => undefined,
  };
  const stream = scriptedStream(turns);
  const deps: LoopDeps = {
    store,
    tools: createWorkspaceTools(),
    workspace: home,
    hooks: {},
    now: () => clock,
    timers,
    random: () => 0,
    auth: pool(opts.env),
    streamFnFor: () => stream,
    idleTimeoutMs: () => 5000,
    contextTokens: (m) => m.contextWindow,
    ...opts.deps,
  };
  const out = await runOuterLoop(
    {
      runId: 'r1',
      sessionKey: 'main',
      sessionId: session.sessionId,
      models: opts.models ?? [primary],
      thinking: 'off',
      messages: [...history, user],
      persist: (m) => store.append(session.sessionId, m),
    },
    deps,
    createRunEmitter('r1', 'main', (e) => events.push(e), () => clock),
    opts.signal ?? new AbortController().signal,
  );
  const retries = events.filter((e) => e.stream === 'retry').map((e) => e.data as RetryData);
  return { out, events, retries, waits, stream, transcript: await store.loadMessages(session.sessionId) };
}

describe('runOuterLoop (E7)', () => {
  it('a 429 on the first profile completes on the second; partial output is discarded, not repeated', async () => {
    const { out, retries, stream, events } = await run([
      { text: ['Partial '], error: httpError(429, 'rate limited') },
      { text: ['Done.'] },
    ]);
    expect(out).toMatchObject({ ok: true, attempts: 2, profileId: 'p:personal' });
    expect(said(out)).toEqual(['Done.']);
    expect(stream.requests.map((r) => r.apiKey)).toEqual(['key-work', 'key-personal']);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, reason: 'rate_limit', profileId: 'p:work', discardTurn: 0, next: { action: 'rotate', profileId: 'p:personal' } });
    expect(retries[0]!.cooldownUntil).toBe(clock + 30_000);
    // the retry's model call is a new turn, and the failed partial assistant turn is never sent again
    const turns = events.filter((e) => e.stream === 'assistant' && !('block' in e.data)).map((e) => (e.data as { turn: number }).turn);
    expect(turns).toEqual([0, 1]);
    expect(stream.requests[1]!.messages.map((m) => m.role)).toEqual(['user']);
    // the next process skips the cooling profile
    const plan = await pool().plan(primary);
    expect(plan.kind === 'profiles' && plan.ready.map((p) => p.id)).toEqual(['p:personal']);
  });

  it('the retry line is kept on the next message written (a reload shows it), without the live-only discardTurn', async () => {
    const { retries, transcript } = await run([{ error: httpError(429, 'rate limited') }, { text: ['Done.'] }]);
    const [failed, answer] = transcript.filter((m) => m.role === 'assistant');
    expect(failed).toMatchObject({ stopReason: 'error' });
    expect(failed && 'retries' in failed).toBe(false);
    const { discardTurn: _live, ...note } = retries[0]!;
    expect(answer).toMatchObject({ stopReason: 'stop', retries: [note] });
    expect(answer && 'retries' in answer && answer.retries![0]).not.toHaveProperty('discardTurn');
  });

  it('before_agent_finalize revisions are capped per run, not per attempt: a retry does not reset the count', async () => {
    let asked = 0;
    const hooks = { before_agent_finalize: () => (asked++, { action: 'revise' as const, reason: 'again' }) };
    // Answer → revise → answer → revise; then a 429 starts a new attempt; answer → revise → answer (the cap of 3 is spent).
    const { out, stream } = await run(
      [{ text: ['A1'] }, { text: ['A2'] }, { error: httpError(429, 'rate limited') }, { text: ['A3'] }, { text: ['A4'] }, { text: ['A5'] }],
      { deps: { hooks } },
    );
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(asked).toBe(3);
    expect(stream.requests).toHaveLength(5); // 2 calls, the failed one, then 2: the 3rd revision is the last
    expect(said(out)).toEqual(['A4']);
  });

  it('E16: the messaging ledger belongs to the run — a reply after a retry that repeats an earlier post is not delivered twice', async () => {
    const post = 'Report: all 12 files were converted to UTF-8.';
    const { out } = await run([
      { toolCalls: [{ id: 'm1', name: 'send_message', arguments: { text: post } }] },
      { error: httpError(429, 'rate limited') },
      { text: [post] },
    ]);
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(out.parts.filter((p) => p.kind !== 'tool')).toEqual([{ kind: 'message', text: post }]);
    expect(out.sentNormalized).toEqual([post.toLowerCase()]);
  });

  it('a locked profile never rotates: a 429 on it probes it again rather than using the other key', async () => {
    const locked: AppConfigInput = {
      ...CONFIG,
      authProfiles: [
        { id: 'p:work', provider: 'p', apiKeyEnv: 'P_WORK' },
        { id: 'p:personal', provider: 'p', apiKeyEnv: 'P_PERSONAL', locked: true },
      ],
    };
    const { out, stream, retries } = await run([{ error: httpError(429, 'rate limited') }, { text: ['ok'] }], {
      deps: { auth: pool(ENV, locked) },
    });
    expect(out).toMatchObject({ ok: true, attempts: 2, profileId: 'p:personal' });
    expect(stream.requests.map((r) => r.apiKey)).toEqual(['key-personal', 'key-personal']);
    expect(retries[0]!.next).toEqual({ action: 'backoff', waitMs: 250, profileId: 'p:personal' });
  });

  it('resumes from the transcript: completed tool calls and results are kept across a retry', async () => {
    const { out, stream, transcript } = await run([
      { toolCalls: [{ id: 't1', name: 'list', arguments: {} }] },
      { error: httpError(429, 'rate limited') },
      { text: ['Listed.'] },
    ]);
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(said(out)).toEqual(['Listed.']);
    expect(stream.requests[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult']);
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'assistant']);
  });

  it('529 on the only profile backs off 250 ms, then probes the cooling profile', async () => {
    const { out, retries, waits } = await run([{ error: httpError(529, 'Overloaded') }, { text: ['ok'] }], { env: { P_WORK: 'key-work' } });
    expect(out).toMatchObject({ ok: true, attempts: 2, profileId: 'p:work' });
    expect(waits).toEqual([250]);
    expect(retries[0]!.next).toEqual({ action: 'backoff', waitMs: 250, profileId: 'p:work' });
  });

  it('repeated overload backs off 250 → 500 → 1000 → 1500 ms, then gives up naming what was tried', async () => {
    const turns = Array.from({ length: 5 }, () => ({ error: httpError(529, 'Overloaded') }));
    const { out, waits } = await run(turns, { env: { P_WORK: 'key-work' } });
    expect(waits).toEqual([250, 500, 1000, 1500]);
    expect(out.ok).toBe(false);
    expect(out.attempts).toBe(5);
    expect((out.error as Error).message).toMatch(/^Failed after 5 attempts — tried p\/one: p:work \(overloaded\)\. Last error: .*overloaded/);
  });

  it('a 401 on every profile of the primary falls back to the next model', async () => {
    const { out, retries } = await run(
      [{ error: httpError(401, 'invalid x-api-key') }, { error: httpError(401, 'invalid x-api-key') }, { text: ['From backup.'] }],
      { models: [primary, backup] },
    );
    expect(out).toMatchObject({ ok: true, attempts: 3, profileId: 'q:main', model: backup });
    expect(said(out)).toEqual(['From backup.']);
    expect(retries.map((r) => r.next)).toEqual([
      { action: 'rotate', profileId: 'p:personal' },
      { action: 'fallback', provider: 'q', model: 'two' },
    ]);
    const plan = await pool().plan(primary);
    expect(plan.kind === 'profiles' && plan.ready).toEqual([]); // both disabled for 10 min
  });

  it('a replaced key is not held to the old key\'s cooldown (the person fixed it)', async () => {
    await run([{ error: httpError(401, 'invalid x-api-key') }], { env: { P_WORK: 'key-work' } });
    const disabled = await pool({ P_WORK: 'key-work' }).plan(primary);
    expect(disabled.kind === 'profiles' && disabled.cooling.map((p) => p.id)).toEqual(['p:work']);
    const fixed = await pool({ P_WORK: 'key-work-fixed' }).plan(primary);
    expect(fixed.kind === 'profiles' && fixed.ready.map((p) => p.id)).toEqual(['p:work']);
    const status = await pool({ P_WORK: 'key-work-fixed' }).status();
    expect(status.find((p) => p.id === 'p:work')).toMatchObject({ state: 'ok', lastError: expect.stringMatching(/key 'work' was rejected \(401\)/) });
    expect(JSON.stringify(await new AuthStateStore(join(home, 'auth-state.json')).read())).not.toContain('key-work');
  });

  it('after the last model, one error names the models, profiles and reasons', async () => {
    const { out } = await run(
      [{ error: httpError(401, 'invalid x-api-key') }, { error: httpError(402, 'credit balance too low') }, { error: httpError(404, 'model: two not found') }],
      { models: [primary, backup] },
    );
    expect(out.ok).toBe(false);
    expect((out.error as Error).message).toMatch(
      /^Failed after 3 attempts — tried p\/one: p:work \(key rejected\), p:personal \(billing\); q\/two: q:main \(model not found\)\. Last error: Model not found/,
    );
  });

  it('E6 as in the seed: a locked profile is used even while it cools (a later run sends, it does not refuse)', async () => {
    const locked: AppConfigInput = { ...CONFIG, authProfiles: [{ id: 'p:work', provider: 'p', apiKeyEnv: 'P_WORK', locked: true }] };
    const first = await run([{ error: httpError(402, 'credit balance too low') }], { deps: { auth: pool(ENV, locked) } });
    expect(first.out.ok).toBe(false);
    const second = await run([{ text: ['topped up'] }], { deps: { auth: pool(ENV, locked) } });
    expect(second.out).toMatchObject({ ok: true, profileId: 'p:work' });
    expect(second.stream.requests).toHaveLength(1);
  });

  it('E6: when every key cools for billing, one probe goes out (the one-probe rule covers billing); a rejected key gets none', async () => {
    const work = { P_WORK: 'key-work' };
    expect((await run([{ error: httpError(402, 'credit balance too low') }], { env: work })).out.ok).toBe(false);
    const probe = await run([{ text: ['paid again'] }], { env: work });
    expect(probe.out).toMatchObject({ ok: true, attempts: 1, profileId: 'p:work' });
    const personal = { P_PERSONAL: 'key-personal' };
    expect((await run([{ error: httpError(401, 'invalid x-api-key') }], { env: personal })).out.ok).toBe(false);
    const none = await run([{ text: ['never sent'] }], { env: personal });
    expect(none.stream.requests).toHaveLength(0);
    expect((none.out.error as Error).message).toMatch(/cooling down/);
  });

  it('E6: a 429 benches the key for that model only — the next run on another model of the provider uses it', async () => {
    const one = { P_WORK: 'key-work' };
    const sibling: ModelDef = { ...primary, id: 'one-mini' };
    const limited = await run([{ error: httpError(429, 'rate limited') }, { error: httpError(429, 'rate limited') }], { env: one });
    expect(limited.out.ok).toBe(false);
    const other = await run([{ text: ['from the sibling'] }], { env: one, models: [sibling] });
    expect(other.out).toMatchObject({ ok: true, attempts: 1, profileId: 'p:work' });
    const plan = await pool(one).plan(primary);
    expect(plan.kind === 'profiles' && plan.cooling.map((p) => p.id)).toEqual(['p:work']);
    const planSibling = await pool(one).plan(sibling);
    expect(planSibling.kind === 'profiles' && planSibling.ready.map((p) => p.id)).toEqual(['p:work']);
  });

  it('E10 as the seed: the truncate route shortens the stored tool results, skips the send, and a fresh attempt sends them', async () => {
    const big = 'file a/b.ts: 3 matches\n'.repeat(478); // ~11 000 chars each: under the per-result cap, too many together
    const call = (id: string): Message => ({
      role: 'assistant',
      content: [{ type: 'toolCall', id, name: 'grep', arguments: { pattern: id } }],
      provider: 'p', model: 'one', api: 'anthropic',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      stopReason: 'toolUse',
      timestamp: 1,
    });
    const result = (id: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'grep', content: big, isError: false, timestamp: 1 });
    const history: Message[] = [{ role: 'user', content: 'grep all', timestamp: 0 }];
    for (let i = 0; i < 5; i++) history.push(call(`g${i}`), result(`g${i}`));
    const { out, stream, transcript } = await run([{ text: ['Summed up.'] }], { history, deps: { contextTokens: () => 20_000 } });
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(stream.requests).toHaveLength(1); // the first attempt sent nothing
    const sent = stream.requests[0]!.messages.filter((m) => m.role === 'toolResult');
    expect(sent.some((m) => m.content.length < big.length && /more characters truncated/.test(m.content))).toBe(true);
    expect(transcript.filter((m) => m.role === 'toolResult').every((m) => m.content === big)).toBe(true); // append-only
  });

  it('a model without keys is skipped to the fallback', async () => {
    const { out, retries } = await run([{ text: ['ok'] }], { models: [primary, backup], env: { Q_MAIN: 'key-q' } });
    expect(out).toMatchObject({ ok: true, attempts: 1, profileId: 'q:main' });
    expect(retries[0]).toMatchObject({ reason: 'auth', profileId: null, next: { action: 'fallback', provider: 'q' } });
  });

  it('a retry-after wait ends as soon as the run signal fires', async () => {
    const controller = new AbortController();
    const timeout = new Error('The run timed out after 3 s.');
    // Real timers; the run's deadline fires 50 ms after the 30 s wait has begun (not before the first attempt).
    const realTimers: Timers = {
      setTimeout: (fn, ms) => {
        if (ms === 30_000) setTimeout(() => ((abortedAt = Date.now()), controller.abort(timeout)), 50);
        return setTimeout(fn, ms);
      },
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    };
    let abortedAt = Number.NaN;
    const { out, retries } = await run([{ error: httpError(429, 'rate limited', { 'retry-after': '30' }) }], {
      env: { P_WORK: 'key-work' },
      deps: { timers: realTimers },
      signal: controller.signal,
    });
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(retries[0]!.next).toEqual({ action: 'wait', waitMs: 30_000, profileId: 'p:work' });
    expect(out).toMatchObject({ ok: false, error: timeout });
  });

  it('an overflow without recovery is a clear error; with recovery it compacts and retries', async () => {
    const overflow = () => httpError(400, 'prompt is too long: 250000 tokens > 200000 maximum');
    const bare = await run([{ error: overflow() }]);
    expect((bare.out.error as Error).message ?? String(bare.out.error)).toMatch(/prompt is too long/);
    const calls: string[] = [];
    const wired = await run([{ error: overflow() }, { text: ['fits now'] }], {
      deps: { recoverOverflow: async (ctx) => (calls.push(ctx.error.reason), { compacted: true, tokensBefore: 250_000, tokensAfter: 20_000 }) },
    });
    expect(calls).toEqual(['context_overflow']);
    expect(wired.out).toMatchObject({ ok: true, compactions: 1, attempts: 2 });
    expect(wired.retries[0]!.next).toEqual({ action: 'compact' });
    const useless = await run([{ error: overflow() }], { deps: { recoverOverflow: async () => ({ compacted: false, reason: 'nothing to compact' }) } });
    expect((useless.out.error as Error).message).toMatch(/compaction could not help: nothing to compact/);
  });

  it('E5: a window under 16 000 tokens is refused, under 32 000 warned about', async () => {
    const { out, stream } = await run([{ text: ['never'] }], { deps: { contextTokens: () => 12_000 } });
    expect(stream.requests).toHaveLength(0);
    expect((out.error as Error).message).toBe(
      'The context window of p/one is 12000 tokens, below the 16000 minimum: raise agent.contextTokens or pick another model.',
    );
    expect(contextWarning(primary, 20_000)).toMatch(/only 20000 tokens/);
    expect(contextWarning(primary, 32_000)).toBeUndefined();
  });
});
