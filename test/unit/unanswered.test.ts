import { describe, expect, it } from 'vitest';
import { annotateUnanswered, unansweredNote } from '../../main/engine/attempt/unanswered.js';
import type { AssistantMessage, Message } from '../../main/engine/messages.js';
import { emptyUsage } from '../../main/engine/messages.js';

const u = (content: string, extra: Partial<Message> = {}): Message => ({ role: 'user', content, timestamp: 1, ...extra }) as Message;
const a = (stopReason: AssistantMessage['stopReason'], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: 'assistant',
  content: stopReason === 'toolUse' ? [{ type: 'toolCall', id: 't1', name: 'list', arguments: {} }] : [{ type: 'text', text: 'ok' }],
  provider: 'p',
  model: 'm',
  api: 'anthropic',
  usage: emptyUsage(),
  stopReason,
  timestamp: 2,
  ...extra,
});
const r = (): Message => ({ role: 'toolResult', toolCallId: 't1', toolName: 'list', content: 'x', isError: false, timestamp: 3 });

/** A compact picture: U user, A assistant reply, T tool call, R tool result, E failure marker, N note(text). */
function shape(messages: Message[]): string[] {
  return messages.map((m) => {
    if (m.role === 'user') return m.steered ? `S:${m.content}` : `U:${m.content}`;
    if (m.role === 'toolResult') return 'R';
    if (m.model === 'unanswered-note') return `N${(m.content[0] as { text: string }).text}`;
    if (m.stopReason === 'error' || m.stopReason === 'aborted') return 'E';
    return m.stopReason === 'toolUse' ? 'T' : 'A';
  });
}

describe('unansweredNote', () => {
  it.each([
    [undefined, '(no reply: the run ended before answering)'],
    [a('error', { errorMessage: 'The run timed out after 3 s.' }), '(no reply: the run timed out)'],
    [a('aborted', { errorMessage: 'whatever' }), '(no reply: the run was stopped)'],
    [a('error', { errorMessage: 'The run was interrupted by a newer message.' }), '(no reply: the run was stopped)'],
    [a('error', { errorMessage: 'Rate limited by the provider.\nmore' }), '(no reply: the run failed: Rate limited by the provider.)'],
    [a('error'), '(no reply: the run failed)'],
  ])('%#: %s', (failure, text) => {
    expect(unansweredNote(failure)).toBe(text);
  });
});

describe('annotateUnanswered', () => {
  it.each<[string, Message[], string[]]>([
    ['answered turns get nothing', [u('a'), a('stop'), u('b')], ['U:a', 'A', 'U:b']],
    ['a killed process (user, user)', [u('hang'), u('plain again')], ['U:hang', 'N(no reply: the run ended before answering)', 'U:plain again']],
    [
      'a timeout marker names the reason',
      [u('hang'), a('error', { errorMessage: 'The run timed out after 3 s.' }), u('next')],
      ['U:hang', 'E', 'N(no reply: the run timed out)', 'U:next'],
    ],
    ['a turn that ended in tool results', [u('a'), a('toolUse'), r(), u('b')], ['U:a', 'T', 'R', 'N(no reply: the run ended before answering)', 'U:b']],
    ['a failed attempt retried successfully is answered', [u('a'), a('error'), a('stop'), u('b')], ['U:a', 'E', 'A', 'U:b']],
    ['a steered message inside the tool loop is no new turn', [u('a'), a('toolUse'), r(), u('more', { steered: true }), a('stop')], ['U:a', 'T', 'R', 'S:more', 'A']],
    ['the first message needs no note', [u('only')], ['U:only']],
    [
      'the failure of an earlier turn does not leak into a later one',
      [u('a'), a('error', { errorMessage: 'The run timed out.' }), u('b'), a('stop'), u('c'), u('d')],
      ['U:a', 'E', 'N(no reply: the run timed out)', 'U:b', 'A', 'U:c', 'N(no reply: the run ended before answering)', 'U:d'],
    ],
  ])('%s', (_name, input, expected) => {
    const before = JSON.stringify(input);
    expect(shape(annotateUnanswered(input))).toEqual(expected);
    expect(JSON.stringify(input)).toBe(before); // pure
  });
});
