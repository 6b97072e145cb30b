import { describe, expect, it } from 'vitest';
import type { AgentEvent, HistoryEntry, RetryData } from '../../preload/contract.js';
import { applyEvents, historyToTurns } from '../../renderer/src/store/reduce.js';
import type { AssistantTurn, Turn } from '../../renderer/src/store/types.js';
import { describeError, isStopText } from '../../renderer/src/lib/errors.js';

let seq = 0;
const ev = (stream: AgentEvent['stream'], data: unknown, runId = 'r1', sessionKey = 'main', s?: number): AgentEvent =>
  ({ type: 'event', runId, sessionKey, seq: s ?? seq++, stream, data, ts: 0 }) as AgentEvent;

const assistant = (turns: Turn[]) => turns.filter((t): t is AssistantTurn => t.kind === 'assistant');
const usage = { input: 1000, output: 50, cacheRead: 200, cacheWrite: 0, total: 1250 };
const result = (provider = 'demo', model = 'agent') => ({
  runId: 'r1',
  status: 'ok',
  payloads: [],
  usage,
  meta: { provider, model, profileId: null, attempts: 1, compactions: 0 },
});

describe('applyEvents', () => {
  it('keeps thinking, text and tool rows in the order they happened, thinking segments apart', () => {
    seq = 0;
    const turns = applyEvents(
      [],
      [
        ev('lifecycle', { phase: 'start', startedAt: 1, provider: 'demo', model: 'agent', demo: true }),
        ev('thinking', { delta: 'plan', text: 'plan', turn: 0 }),
        ev('assistant', { delta: 'Look', text: 'Look', turn: 0 }),
        ev('assistant', { delta: 'ing.', text: 'Looking.', turn: 0 }),
        ev('tool', { phase: 'start', toolCallId: 't1', name: 'list', args: { path: '.' } }),
        ev('tool', { phase: 'update', toolCallId: 't1', name: 'list', partial: 'a' }),
        ev('tool', { phase: 'end', toolCallId: 't1', name: 'list', result: 'a\nb', isError: false, durationMs: 3 }),
        ev('thinking', { delta: 'next', text: 'next', turn: 1 }),
        ev('assistant', { delta: 'Done.', text: 'Done.', turn: 1 }),
        ev('lifecycle', { phase: 'end', endedAt: 2, result: result() }),
      ],
      'main',
    );
    const [turn] = assistant(turns);
    expect(turns).toHaveLength(1);
    expect(turn).toMatchObject({ status: 'done', demo: true, model: 'demo/agent', lastSeq: 9, usage, answeredBy: 'demo/agent' });
    expect(turn!.parts).toEqual([
      { kind: 'thinking', text: 'plan', turn: 0 },
      { kind: 'text', text: 'Looking.', turn: 0 },
      { kind: 'tool', turn: 0, tool: { id: 't1', name: 'list', args: { path: '.' }, status: 'ok', partial: 'a', result: 'a\nb', durationMs: 3 } },
      { kind: 'thinking', text: 'next', turn: 1 },
      { kind: 'text', text: 'Done.', turn: 1 },
    ]);
  });

  it('keeps the start warning (E5 small context window) on the run', () => {
    seq = 0;
    const turns = applyEvents([], [ev('lifecycle', { phase: 'start', startedAt: 1, provider: 'p', model: 'm', warning: 'The context window is small.' })], 'main');
    expect(assistant(turns)[0]!.warning).toBe('The context window is small.');
  });

  it('ignores duplicated/replayed events and events of other sessions', () => {
    seq = 0;
    const once = applyEvents([], [ev('assistant', { delta: 'Hi', text: 'Hi' }, 'r1', 'main', 0)], 'main');
    const twice = applyEvents(once, [ev('assistant', { delta: 'Hi', text: 'Hi' }, 'r1', 'main', 0), ev('assistant', { delta: 'x', text: 'x' }, 'r2', 'other', 0)], 'main');
    expect(twice).toBe(once);
    expect(assistant(twice)[0]!.parts).toEqual([{ kind: 'text', text: 'Hi', turn: 0 }]);
  });

  it('after a gap in the events (a reconnect) the full text so far fills in what was missed', () => {
    const a = applyEvents([], [ev('assistant', { delta: 'Hel', text: 'Hel' }, 'r1', 'main', 0)], 'main');
    const b = applyEvents(a, [ev('assistant', { delta: 'ld', text: 'Hello world' }, 'r1', 'main', 4)], 'main');
    expect(assistant(b)[0]!.parts).toEqual([{ kind: 'text', text: 'Hello world', turn: 0 }]);
  });

  it.each([
    ['The run was stopped.', 'stopped'],
    ['Anthropic rejected the API key (401): invalid x-api-key', 'error'],
  ])('a run ending with %j is %s', (error, status) => {
    seq = 0;
    const turns = applyEvents([], [ev('lifecycle', { phase: 'error', endedAt: 5, error, result: result() })], 'main');
    expect(assistant(turns)[0]).toMatchObject({ status, error });
  });

  it('a tool still running when the run ends is marked failed', () => {
    seq = 0;
    const turns = applyEvents(
      [],
      [
        ev('tool', { phase: 'start', toolCallId: 't1', name: 'exec', args: { command: 'sleep 9' } }),
        ev('lifecycle', { phase: 'error', endedAt: 5, error: 'The run was stopped.', result: result() }),
      ],
      'main',
    );
    const part = assistant(turns)[0]!.parts[0]!;
    expect(part.kind === 'tool' && part.tool.status).toBe('error');
  });
});

describe('retry events (E7)', () => {
  const retry = (over: Partial<RetryData>): RetryData => ({
    attempt: 1,
    reason: 'rate_limit',
    message: 'rate limit reached',
    provider: 'anthropic',
    model: 'claude',
    profileId: 'anthropic:work',
    next: { action: 'rotate', profileId: 'anthropic:personal' },
    ...over,
  });

  it("drops the failed call's partial text, thinking and unfinished tools, keeps earlier calls and finished tools", () => {
    seq = 0;
    const turns = applyEvents(
      [],
      [
        ev('assistant', { delta: 'First call.', text: 'First call.', turn: 0 }),
        ev('tool', { phase: 'start', toolCallId: 'done', name: 'read', args: {} }),
        ev('tool', { phase: 'end', toolCallId: 'done', name: 'read', result: 'x', isError: false, durationMs: 1 }),
        ev('thinking', { delta: 'hmm', text: 'hmm', turn: 1 }),
        ev('assistant', { delta: 'Half a sen', text: 'Half a sen', turn: 1 }),
        ev('tool', { phase: 'start', toolCallId: 'half', name: 'read', args: {} }),
        ev('retry', retry({ discardTurn: 1 })),
        ev('assistant', { delta: 'Whole sentence.', text: 'Whole sentence.', turn: 1 }),
      ],
      'main',
    );
    const parts = assistant(turns)[0]!.parts;
    expect(parts.map((p) => p.kind)).toEqual(['text', 'tool', 'retry', 'text']);
    expect(parts[0]).toMatchObject({ text: 'First call.' });
    expect(parts[3]).toMatchObject({ text: 'Whole sentence.' });
  });

  it('a fallback changes the model shown', () => {
    seq = 0;
    const turns = applyEvents([], [ev('retry', retry({ next: { action: 'fallback', provider: 'openai', model: 'gpt-5' } }))], 'main');
    expect(assistant(turns)[0]!.model).toBe('openai/gpt-5');
  });
});

describe('compaction and queue events', () => {
  it('turns a compaction start/end pair into one divider with tokens before and after', () => {
    seq = 0;
    const turns = applyEvents(
      [],
      [ev('compaction', { phase: 'start' }), ev('compaction', { phase: 'end', tokensBefore: 180_000, tokensAfter: 24_000 })],
      'main',
    );
    expect(assistant(turns)[0]!.parts).toEqual([{ kind: 'compaction', phase: 'end', tokensBefore: 180_000, tokensAfter: 24_000 }]);
  });

  it.each([
    [[{ phase: 'queued', mode: 'collect', position: 1 }], 'queued'],
    [[{ phase: 'queued', mode: 'followup', position: 1 }, { phase: 'started' }], 'running'],
    [[{ phase: 'queued', mode: 'followup', position: 1 }, { phase: 'removed' }], 'removed'],
    [[{ phase: 'queued', mode: 'steer', position: 1 }, { phase: 'steered', intoRunId: 'r0' }], 'merged'],
  ])('queue %j → %s', (phases, status) => {
    seq = 0;
    const turns = applyEvents([], phases.map((d) => ev('queue', d)), 'main');
    expect(assistant(turns)[0]!.status).toBe(status);
  });
});

describe('historyToTurns', () => {
  it('groups assistant and tool entries after each user message and pairs results with calls', () => {
    const entries: HistoryEntry[] = [
      { role: 'user', text: 'hi', timestamp: 1 },
      { role: 'assistant', text: 'Checking.', thinking: 't', toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse', timestamp: 2 },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: 'boom', isError: true, timestamp: 3 },
      { role: 'assistant', text: 'It failed.', thinking: '', toolCalls: [], stopReason: 'stop', timestamp: 4 },
      { role: 'user', text: 'again', timestamp: 5 },
      { role: 'assistant', text: 'par', thinking: '', toolCalls: [], stopReason: 'aborted', errorMessage: 'The run was stopped.', timestamp: 6 },
      { role: 'user', text: 'third', timestamp: 7 },
      { role: 'assistant', text: '', thinking: '', toolCalls: [], stopReason: 'error', errorMessage: 'Anthropic rate limit reached (429): slow down', timestamp: 8 },
    ];
    const turns = historyToTurns(entries);
    expect(turns.map((t) => t.kind)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const [first, second, third] = assistant(turns);
    expect(first!.parts).toEqual([
      { kind: 'thinking', text: 't', turn: 1 },
      { kind: 'text', text: 'Checking.', turn: 1 },
      { kind: 'tool', turn: 1, tool: { id: 'c1', name: 'read', args: { path: 'a' }, status: 'error', partial: '', result: 'boom' } },
      { kind: 'text', text: 'It failed.', turn: 3 },
    ]);
    expect(first!.status).toBe('done');
    expect(second).toMatchObject({ status: 'stopped', error: 'The run was stopped.' });
    // same wording and actions after a reload as live
    expect(third).toMatchObject({ status: 'error', error: 'Anthropic rate limit reached (429): slow down' });
  });
  it.each([
    ['every call priced: the calls summed, as the run billed them', [0.25, 0.5], 0.75],
    ['one call unpriced: no cost rather than a partial one', [0.25, undefined], undefined],
  ] as const)('a reloaded reply costs what the run was billed (%s)', (_what, costs, total) => {
    const call = (i: number, cost: number | undefined): HistoryEntry => ({
      role: 'assistant', text: `c${i}`, thinking: '', toolCalls: [], stopReason: 'stop', timestamp: 2 + i,
      usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0 }, ...(cost !== undefined ? { cost } : {}),
    });
    const [turn] = assistant(historyToTurns([{ role: 'user', text: 'hi', timestamp: 1 }, ...costs.map((c, i) => call(i, c))]));
    expect(turn!.cost).toBe(total);
    expect(turn!.usage).toMatchObject({ input: 100, output: 20 });
  });
});

describe('compaction records in the history (E10)', () => {
  it('a stored compaction becomes a divider where it happened', () => {
    const entries = [
      { role: 'user', text: 'a', timestamp: 1 },
      { role: 'assistant', text: 'b', thinking: '', toolCalls: [], stopReason: 'stop', timestamp: 2 },
      { role: 'compaction', summary: 's', tokensBefore: 90_000, tokensAfter: 9000, timestamp: 3 },
      { role: 'user', text: 'c', timestamp: 4 },
    ] as unknown as HistoryEntry[];
    const turns = historyToTurns(entries);
    expect(turns.map((t) => t.kind)).toEqual(['user', 'assistant', 'user']);
    expect(assistant(turns)[0]!.parts.at(-1)).toEqual({ kind: 'compaction', phase: 'end', tokensBefore: 90_000, tokensAfter: 9000 });
  });
  it('a failed compaction keeps its error', () => {
    seq = 0;
    const turns = applyEvents([], [ev('compaction', { phase: 'start' }), ev('compaction', { phase: 'end', tokensBefore: 5, tokensAfter: 5, error: 'summary failed' })], 'main');
    expect(assistant(turns)[0]!.parts).toEqual([{ kind: 'compaction', phase: 'end', tokensBefore: 5, tokensAfter: 5, error: 'summary failed' }]);
  });
});

describe('errors a person can act on', () => {
  it.each([
    ['Anthropic rejected the API key (401): invalid x-api-key', 'key', ['settings', 'switch-model', 'retry']],
    ['No API key for provider "anthropic": set ANTHROPIC_API_KEY.', 'key', ['settings', 'switch-model', 'retry']],
    ['Anthropic rate limit reached (429): slow down', 'rate', ['retry', 'switch-model']],
    ['OpenAI connection failed or timed out: ECONNRESET', 'network', ['retry']],
    ['Model not found (404): nope', 'model', ['switch-model']],
    ['Something odd\nwith a second line', 'other', ['retry', 'switch-model']],
  ])('%j → %s %j', (text, kind, actions) => {
    const view = describeError(text);
    expect(view).toMatchObject({ kind, actions });
    expect(view.line).not.toContain('\n');
  });
  it.each([
    ['The run was stopped.', true],
    ['Stopped.', true],
    ['The run timed out after 600 s', false],
    [undefined, false],
  ])('isStopText(%j) = %s', (text, stopped) => {
    expect(isStopText(text)).toBe(stopped);
  });
});
