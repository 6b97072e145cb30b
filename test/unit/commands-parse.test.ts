/** E22: which messages are commands the gateway owns (main/gateway/commands/parse.ts) — and which are plain text. */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../main/gateway/commands/parse.js';

describe('parseCommand', () => {
  it.each([
    ['/stop', { name: 'stop' }],
    ['  /STOP  ', { name: 'stop' }],
    ['/new', { name: 'new' }],
    ['/reset', { name: 'reset' }],
    ['/compact', { name: 'compact' }],
    ['/status', { name: 'status' }],
    ['/model', { name: 'model' }],
    ['/model anthropic/claude-sonnet-4-5', { name: 'model', ref: 'anthropic/claude-sonnet-4-5' }],
    ['/model   openrouter/meta/llama-3 ', { name: 'model', ref: 'openrouter/meta/llama-3' }],
    ['/think', { name: 'think' }],
    ['/think HIGH', { name: 'think', level: 'high' }],
    ['/think off', { name: 'think', level: 'off' }],
    ['/verbose on', { name: 'verbose', on: true }],
    ['/verbose Off', { name: 'verbose', on: false }],
    ['/verbose', { name: 'verbose' }],
  ])('%j is the command %j', (text, command) => {
    expect(parseCommand(text)).toEqual({ kind: 'command', command });
  });

  it.each([
    ['/stop now', 'stop', /takes no argument/],
    ['/model gpt-4o', 'model', /not a model reference/],
    ['/model a/b c', 'model', /not a model reference/],
    ['/think harder', 'think', /not a thinking level/],
    ['/verbose yes', 'verbose', /neither on nor off/],
    ['/compact\nplease', 'compact', /takes no argument/],
  ])('%j is /%s with a bad argument: answered with its usage, never sent on', (text, name, why) => {
    const parsed = parseCommand(text);
    expect(parsed).toMatchObject({ kind: 'invalid', name });
    expect(parsed?.kind === 'invalid' && parsed.message).toMatch(why);
    expect(parsed?.kind === 'invalid' && parsed.message).toMatch(/Usage: \//);
  });

  it.each([
    'hello',
    '/usr/bin/env is missing', // a pasted path
    '/new/file.txt',
    '/stopwatch',
    '/tmp',
    '/',
    '//stop',
    'please /stop',
    '/help', // not one of ours: the model may answer it
    '/models',
  ])('%j is ordinary text', (text) => {
    expect(parseCommand(text)).toBeUndefined();
  });
});
