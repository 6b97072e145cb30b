import { describe, expect, it } from 'vitest';
import type { AgentEvent, HistoryEntry } from '../../preload/contract.js';
import { applyEvents, historyToTurns } from '../../renderer/src/store/reduce.js';
import type { AssistantTurn, Turn } from '../../renderer/src/store/types.js';

let seq = 0;
const ev = (stream: AgentEvent['stream'], data: unknown, runId = 'r1', sessionKey = 'main', s?: number): AgentEvent =>
  ({ type: 'event', runId, sessionKey, seq: s ?? seq++, stream, data, ts: 0 }) as AgentEvent;

const assistant = (turns: Turn[]) => turns.filter((t): t is AssistantTurn => t.kind === 'assistant');

describe('applyEvents', () => {
  it('builds one assistant turn per run, keeping text and tools in order', () => {
    seq = 0;
    const turns = applyEvents(
      [],
      [
        ev('lifecycle', { phase: 'start', startedAt: 1, provider: 'demo', model: 'agent', demo: true }),
        ev('thinking', { delta: 'plan', text: 'plan' }),
        ev('assistant', { delta: 'Look', text: 'Look' }),
        ev('assistant', { delta: 'ing.', text: 'Looking.' }),
        ev('tool', { phase: 'start', toolCallId: 't1', name: 'list', args: { path: '.' } }),
        ev('tool', { phase: 'update', toolCallId: 't1', name: 'list', partial: 'a' }),
        ev('tool', { phase: 'end', toolCallId: 't1', name: 'list', result: 'a\nb', isError: false, durationMs: 3 }),
        ev('assistant', { delta: 'Done.', text: 'Done.', turn: 1 }),
        ev('lifecycle', { phase: 'end', endedAt: 2, result: {} }),
      ],
      'main',
    );
    const [turn] = assistant(turns);
    expect(turns).toHaveLength(1);
    expect(turn).toMatchObject({ status: 'done', demo: true, model: 'demo/agent', thinking: 'plan', lastSeq: 8 });
    expect(turn!.parts).toEqual([
      { kind: 'text', text: 'Looking.' },
      { kind: 'tool', tool: { id: 't1', name: 'list', args: { path: '.' }, status: 'ok', partial: 'a', result: 'a\nb', durationMs: 3 } },
      { kind: 'text', text: 'Done.' },
    ]);
  });

  it('ignores duplicated/replayed events and events of other sessions', () => {
    seq = 0;
    const once = applyEvents([], [ev('assistant', { delta: 'Hi', text: 'Hi' }, 'r1', 'main', 0)], 'main');
    const twice = applyEvents(once, [ev('assistant', { delta: 'Hi', text: 'Hi' }, 'r1', 'main', 0), ev('assistant', { delta: 'x', text: 'x' }, 'r2', 'other', 0)], 'main');
    expect(twice).toBe(once);
    expect(assistant(twice)[0]!.parts).toEqual([{ kind: 'text', text: 'Hi' }]);
  });

  it('marks a failed run with its error message', () => {
    seq = 0;
    const turns = applyEvents([], [ev('lifecycle', { phase: 'error', endedAt: 5, error: 'The API key was rejected', result: {} })], 'main');
    expect(assistant(turns)[0]).toMatchObject({ status: 'error', error: 'The API key was rejected' });
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
      { role: 'assistant', text: 'par', thinking: '', toolCalls: [], stopReason: 'aborted', timestamp: 6 },
    ];
    const turns = historyToTurns(entries);
    expect(turns.map((t) => t.kind)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const [first, second] = assistant(turns);
    expect(first!.parts).toEqual([
      { kind: 'text', text: 'Checking.' },
      { kind: 'tool', tool: { id: 'c1', name: 'read', args: { path: 'a' }, status: 'error', partial: '', result: 'boom' } },
      { kind: 'text', text: 'It failed.' },
    ]);
    expect(first!.status).toBe('done');
    expect(second).toMatchObject({ status: 'error', error: 'Stopped.' });
  });
});
