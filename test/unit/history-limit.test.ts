/** E22 history limit by turns (history-limit.ts), and the pairing repair re-run after the cut (attempt.ts buildContext). */
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../main/engine/messages.js';
import { limitHistoryTurns } from '../../main/engine/attempt/history-limit.js';
import { buildContext } from '../../main/engine/attempt/attempt.js';

const u = (content: string, steered?: boolean): Message => ({ role: 'user', content, timestamp: 1, ...(steered ? { steered } : {}) });
const a = (text: string, calls: string[] = []): AssistantMessage => ({
  role: 'assistant',
  content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls.map((id) => ({ type: 'toolCall' as const, id, name: 'read', arguments: {} }))],
  provider: 'p',
  model: 'm',
  api: 'anthropic',
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  stopReason: calls.length ? 'toolUse' : 'stop',
  timestamp: 1,
});
const r = (id: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: `result ${id}`, isError: false, timestamp: 1 });
const label = (m: Message) => (m.role === 'user' ? `u:${m.content}` : m.role === 'toolResult' ? `r:${m.toolCallId}` : `a:${m.content.map((b) => (b.type === 'text' ? b.text : b.type === 'toolCall' ? b.id : '')).join('+')}`);

const H: Message[] = [u('one'), a('1'), u('two'), a('', ['t1']), r('t1'), a('2'), u('steer', true), u('three'), a('3')];

describe('limitHistoryTurns', () => {
  it.each<[number | undefined, string[]]>([
    [undefined, H.map(label)],
    [0, H.map(label)],
    [10, H.map(label)],
    [1, ['u:three', 'a:3']],
    // a steered message joins the turn it was steered into; the tool pair stays whole
    [2, ['u:two', 'a:t1', 'r:t1', 'a:2', 'u:steer', 'u:three', 'a:3']],
    [3, H.map(label)],
  ])('last %s turns', (turns, expected) => {
    expect(limitHistoryTurns(H, turns).map(label)).toEqual(expected);
  });
});

describe('buildContext with a history limit: the repair runs after the cut', () => {
  it('a tool result whose call was before the cut is dropped, never sent alone', () => {
    // A run killed mid-loop can leave a tool result after a later user message (a legacy transcript shape).
    const messages: Message[] = [u('one'), a('', ['t9']), u('two'), r('t9'), a('2'), u('three')];
    const sent = buildContext(messages, { historyTurns: 2 }).map(label);
    expect(sent[0]).toBe('u:two');
    expect(sent).not.toContain('r:t9');
    expect(sent.at(-1)).toBe('u:three');
  });
});
