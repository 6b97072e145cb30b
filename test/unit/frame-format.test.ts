/** The app frame's display helpers (chat list rows, settings): table-driven. */
import { describe, expect, it } from 'vitest';
import { folderName, modelLabel, relativeTime, tokenCount } from '../../renderer/src/components/frame/format.js';

describe('modelLabel: the chat list shows the model, not its provider', () => {
  it.each([
    ['anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['openrouter/meta-llama/llama-3.1-70b', 'meta-llama/llama-3.1-70b'],
    ['demo/agent', 'Demo'],
    ['no-provider', 'no-provider'],
    ['trailing/', 'trailing/'],
    ['/leading', '/leading'],
  ])('%s → %s', (ref, label) => expect(modelLabel(ref)).toBe(label));
});

describe('relativeTime', () => {
  const now = Date.UTC(2026, 11, 1, 12, 0, 0);
  it.each([
    [0, 'just now'],
    [59_000, 'just now'],
    [60_000, '1 min ago'],
    [3_599_000, '59 min ago'],
    [3_600_000, '1 h ago'],
    [86_399_000, '23 h ago'],
    [86_400_000, '1 d ago'],
    [-5_000, 'just now'],
  ])('%i ms ago → %s', (ago, text) => expect(relativeTime(now - ago, now)).toBe(text));
  it('a week or more ago is a date', () => {
    const ts = now - 8 * 86_400_000;
    expect(relativeTime(ts, now)).toBe(new Date(ts).toLocaleDateString());
  });
});

describe('tokenCount', () => {
  it.each([
    [0, '0 tok'],
    [999, '999 tok'],
    [1000, '1.0k tok'],
    [9_949, '9.9k tok'],
    [10_000, '10k tok'],
    [11_400, '11k tok'],
    [999_999, '1000k tok'],
    [1_000_000, '1.0M tok'],
    [2_450_000, '2.5M tok'],
  ])('%i → %s', (n, text) => expect(tokenCount(n)).toBe(text));
});

describe('folderName', () => {
  it.each([
    ['/home/me/project', 'project'],
    ['/home/me/project/', 'project'],
    ['C:\\Users\\me\\work', 'work'],
    ['/', '/'],
  ])('%s → %s', (path, name) => expect(folderName(path)).toBe(name));
});
