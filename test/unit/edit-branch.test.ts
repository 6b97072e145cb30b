import { describe, expect, it } from 'vitest';
import type { Message } from '../../main/engine/messages.js';
import { branchTitle, userMessageIndex } from '../../main/sessions/edit-branch.js';

const u = (content: string): Message => ({ role: 'user', content, timestamp: 0 });
const a = (text: string): Message =>
  ({ role: 'assistant', content: [{ type: 'text', text }], provider: 'p', model: 'm', api: 'anthropic', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: 'stop', timestamp: 0 }) as Message;

describe('userMessageIndex: the person\'s message counted from the end, its text checked', () => {
  const messages = [u('one'), a('1'), u('two'), a('2'), u('two'), a('2 again')];
  it.each([
    [{ fromEnd: 0, text: 'two' }, 4],
    [{ fromEnd: 1, text: 'two' }, 2],
    [{ fromEnd: 2, text: 'one' }, 0],
    [{ fromEnd: 2, text: 'two' }, -1], // the window shows another text there: stale, refused
    [{ fromEnd: 3, text: 'one' }, -1], // no such message
  ])('%j → %i', (at, want) => expect(userMessageIndex(messages, at)).toBe(want));
});

describe('branchTitle: a chat not named by the person is titled by the first message of the branch shown', () => {
  it.each([
    ['the edited message was the first: untitled until it is sent', [], ''],
    ['an earlier first message stays the title', [u('plan the trip'), a('ok')], 'plan the trip'],
    ['blank messages do not title', [u('  '), a('?'), u('second')], 'second'],
    ['one line, cut at 60 characters', [u(`${'word '.repeat(20)}\nmore`)], `${'word '.repeat(12).trim()}…`],
  ])('%s', (_name, before, want) => expect(branchTitle(before as Message[])).toBe(want));
});
