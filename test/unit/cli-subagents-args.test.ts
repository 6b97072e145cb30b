import { describe, expect, it } from 'vitest';
import { parseSubagentsArgs } from '../../main/cli/args.js';

describe('parseSubagentsArgs', () => {
  it.each([
    [['list'], { action: 'list', json: false }],
    [['list', '--json', '--home', '/h'], { action: 'list', json: true, home: '/h' }],
    [['abort', 'ab12'], { action: 'abort', id: 'ab12', json: false }],
    [['steer', 'ab12', '--message', 'only .ts files'], { action: 'steer', id: 'ab12', message: 'only .ts files', json: false }],
    [['steer', 'ab12', '-m', 'x', '--json'], { action: 'steer', id: 'ab12', message: 'x', json: true }],
  ])('%j', (args, expected) => {
    expect(parseSubagentsArgs(args)).toMatchObject(expected);
  });

  it.each([
    [[], /needs a command: list, abort or steer/],
    [['kill'], /unknown subagents command "kill"/],
    [['abort'], /exactly one subagent ID/],
    [['abort', 'a', 'b'], /exactly one subagent ID/],
    [['steer', 'a'], /needs --message TEXT/],
    [['steer', 'a', '--message', '  '], /needs --message TEXT/],
    [['list', '--message', 'x'], /Unknown option '--message'/],
  ])('%j is refused', (args, message) => {
    expect(() => parseSubagentsArgs(args)).toThrow(message);
  });
});
