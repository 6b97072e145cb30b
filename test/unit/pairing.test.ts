import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, StopReason, ToolResultMessage, UserMessage } from '../../main/engine/messages.js';
import { MISSING_TOOL_RESULT_TEXT, repairToolPairing } from '../../main/engine/attempt/pairing.js';
import { cpuMs } from '../support/cpu-time.js';

// Compact builders; timestamps let a synthetic result be told apart (it takes its assistant's timestamp).
const asst = (label: string, calls: string[], stopReason: StopReason = 'toolUse', ts = 100): AssistantMessage => ({
  role: 'assistant',
  content: [
    { type: 'text', text: label },
    ...calls.map((id) => ({ type: 'toolCall' as const, id, name: `tool_${id}`, arguments: { id } })),
  ],
  provider: 'p',
  model: 'm',
  api: 'a',
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  stopReason: calls.length === 0 && stopReason === 'toolUse' ? 'stop' : stopReason,
  timestamp: ts,
});
const user = (text: string): UserMessage => ({ role: 'user', content: text, timestamp: 1 });
const res = (id: string, content = `result ${id}`, isError = false): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: `tool_${id}`,
  content,
  isError,
  timestamp: 2,
});
const synth = (id: string, text = 'aborted', ts = 100): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: `tool_${id}`,
  content: text,
  isError: true,
  timestamp: ts,
});

// Shared instances so expected arrays can reuse them.
const A12 = asst('A', ['call_1', 'call_2']);
const A1 = asst('A1', ['call_1']);
const A2 = asst('A2', ['call_2'], 'toolUse', 200);
const T = asst('done', []);
const U = user('hi');
const U2 = user('wait, also do X');

describe('repairToolPairing', () => {
  it.each<[string, Message[], Message[]]>([
    ['clean history is unchanged', [U, A1, res('call_1'), T, U2], [U, A1, res('call_1'), T, U2]],
    // Inventory §21 item 7:
    [
      'missing result synthesised, result moved ahead of slipped-in user text',
      [A12, U2, res('call_2')],
      [A12, synth('call_1'), res('call_2'), U2],
    ],
    [
      'results in call order',
      [asst('A', ['c1', 'c2', 'c3']), res('c3'), res('c1')],
      [asst('A', ['c1', 'c2', 'c3']), res('c1'), synth('c2'), res('c3')],
    ],
    ['duplicate results: first kept', [A1, res('call_1', 'first'), res('call_1', 'second')], [A1, res('call_1', 'first')]],
    [
      'a real result beats an earlier synthetic one',
      [A1, synth('call_1', 'aborted', 5), res('call_1', 'real')],
      [A1, res('call_1', 'real')],
    ],
    [
      'a synthetic duplicate does not replace a real result',
      [A1, res('call_1', 'real'), synth('call_1', MISSING_TOOL_RESULT_TEXT)],
      [A1, res('call_1', 'real')],
    ],
    [
      'a real error result is a real result',
      [A1, res('call_1', 'ENOENT', true), res('call_1', 'later')],
      [A1, res('call_1', 'ENOENT', true)],
    ],
    ['orphan result dropped', [U, res('call_9'), T], [U, T]],
    ['a result before its call is an orphan', [res('call_1'), A1], [A1, synth('call_1')]],
    [
      'results that landed after a later assistant go back to their own frame',
      [A1, A2, res('call_1'), res('call_2')],
      [A1, res('call_1'), A2, res('call_2')],
    ],
    // Errored / aborted assistants (permanent-400 'unexpected tool_use_id' class):
    ['errored assistant: results dropped, nothing synthesised', [asst('E', ['c1'], 'error'), res('c1'), U], [asst('E', ['c1'], 'error'), U]],
    ['aborted assistant: nothing synthesised', [asst('X', ['c1', 'c2'], 'aborted'), U], [asst('X', ['c1', 'c2'], 'aborted'), U]],
    [
      'a result after an errored reuse of an id is dropped with it',
      [asst('ok', ['call_0']), asst('E', ['call_0'], 'error', 300), res('call_0')],
      [asst('ok', ['call_0']), synth('call_0'), asst('E', ['call_0'], 'error', 300)],
    ],
    // Ids reused across turns (llama.cpp / Ollama style `call_0`):
    [
      'reused ids pair with the most recent call',
      [asst('r', ['call_0']), res('call_0', 'a'), asst('w', ['call_0'], 'toolUse', 200), res('call_0', 'b')],
      [asst('r', ['call_0']), res('call_0', 'a'), asst('w', ['call_0'], 'toolUse', 200), res('call_0', 'b')],
    ],
    [
      'reused id, first call unanswered',
      [asst('r', ['call_0']), asst('w', ['call_0'], 'toolUse', 200), res('call_0')],
      [asst('r', ['call_0']), synth('call_0'), asst('w', ['call_0'], 'toolUse', 200), res('call_0')],
    ],
    // Legacy result without an id:
    ['id-less result attaches to a single-call frame', [A1, res('')], [A1, { ...res(''), toolCallId: 'call_1' }]],
    ['id-less result with two calls is an orphan', [A12, res('')], [A12, synth('call_1'), synth('call_2')]],
    ['duplicate call ids in one message answered once', [asst('D', ['c', 'c'])], [asst('D', ['c', 'c']), synth('c')]],
  ])('%s', (_name, input, expected) => {
    expect(repairToolPairing(input)).toEqual(expected);
  });

  it.each<[string | undefined, string]>([
    [undefined, 'aborted'],
    ['aborted', 'aborted'],
    [MISSING_TOOL_RESULT_TEXT, MISSING_TOOL_RESULT_TEXT],
  ])('missingResultText %j → %j', (text, content) => {
    const out = repairToolPairing([A1], text === undefined ? {} : { missingResultText: text });
    expect(out).toEqual([A1, synth('call_1', content)]);
  });

  it('a custom synthetic text is recognised as synthetic when a real result follows', () => {
    const custom = 'interrupted!';
    expect(repairToolPairing([A1, synth('call_1', custom), res('call_1', 'real')], { missingResultText: custom })).toEqual([
      A1,
      res('call_1', 'real'),
    ]);
  });

  it('is pure: returns a new array, leaves the input and its messages untouched, reuses unchanged messages', () => {
    const input: Message[] = [A12, U2, res('call_2'), res('zzz')];
    const snapshot = structuredClone(input);
    const out = repairToolPairing(input);
    expect(out).not.toBe(input);
    expect(input).toEqual(snapshot);
    expect(out[0]).toBe(A12);
    expect(out[3]).toBe(U2);
  });

  it('is idempotent', () => {
    const input: Message[] = [U, res('x'), A12, U2, res('call_2'), res('call_2'), A2, asst('E', ['e'], 'aborted'), res('e')];
    const once = repairToolPairing(input);
    expect(repairToolPairing(once)).toEqual(once);
  });

  it('handles a long history in linear time', () => {
    const input: Message[] = [];
    for (let i = 0; i < 6_000; i++) input.push(user(`u${i}`), asst(`a${i}`, [`c${i}`]), ...(i % 2 ? [res(`c${i}`)] : []));
    const { ms, value: out } = cpuMs(() => repairToolPairing(input));
    expect(out).toHaveLength(18_000);
    expect(ms).toBeLessThan(1000);
  });
});
