import { describe, expect, it } from 'vitest';
import type { ModelInfo, RetryData } from '../../preload/contract.js';
import { retryLine } from '../../renderer/src/components/RunNotices.js';
import { contextFigure } from '../../renderer/src/lib/context.js';
import { classifyDiff, diffForTool } from '../../renderer/src/lib/diff.js';
import { formatTokens, formatUntil, toolSummary } from '../../renderer/src/lib/format.js';
import { highlight } from '../../renderer/src/lib/highlight.js';
import { usdText } from '../../renderer/src/usage/usage-store.js';
import type { Turn } from '../../renderer/src/store/types.js';

const usage = (input: number, output: number, cacheRead = 0) => ({ input, output, cacheRead, cacheWrite: 0, total: input + output + cacheRead });

describe('usdText', () => {
  it.each([
    [0, '$0.00'],
    [0.0042, '$0.0042'],
    [1.234, '$1.23'],
  ])('usdText(%s) = %s', (n, s) => expect(usdText(n)).toBe(s));
});

describe('format', () => {
  it.each([
    [950, '950'],
    [12_345, '12k'],
    [1_234, '1.2k'],
    [1_200_000, '1.2M'],
  ])('formatTokens(%s) = %s', (n, s) => expect(formatTokens(n)).toBe(s));
  it.each([
    ['exec', { command: 'npm   test\n--silent' }, 'npm test --silent'],
    ['read', { path: 'src/a.ts', offset: 3 }, 'src/a.ts'],
    ['apply_patch', { input: '*** Begin Patch\n*** Update File: a.ts\n*** Add File: b.ts\n' }, 'a.ts, b.ts'],
    ['other', { a: 1, b: 'x' }, 'a: 1, b: x'],
  ])('toolSummary(%s)', (name, args, s) => expect(toolSummary(name, args)).toBe(s));
  it('formatUntil', () => {
    expect(formatUntil(61_000, 0)).toBe('1 min');
    expect(formatUntil(5_000, 0)).toBe('5 s');
  });
});

describe('retry lines', () => {
  const base: RetryData = { attempt: 1, reason: 'rate_limit', message: 'm', provider: 'anthropic', model: 'c', profileId: 'anthropic:work', next: { action: 'give_up' } };
  it.each([
    [{ action: 'rotate', profileId: 'anthropic:personal' }, 'rate-limited on anthropic:work, switching to anthropic:personal'],
    [{ action: 'backoff', waitMs: 500 }, 'rate-limited on anthropic:work, retrying in 500 ms'],
    [{ action: 'fallback', provider: 'openai', model: 'gpt-5' }, 'rate-limited on anthropic:work, falling back to openai/gpt-5'],
  ] as const)('%j', (next, line) => expect(retryLine({ ...base, next: next as RetryData['next'] })).toBe(line));
});

describe('diffs for edit tools', () => {
  it('computes a unified diff from an edit’s old and new text', () => {
    const diff = diffForTool('edit', { path: 'a.ts', oldText: 'const a = 1;', newText: 'const a = 2;' })!;
    const kinds = classifyDiff(diff).map((l) => l.kind);
    expect(kinds).toContain('add');
    expect(kinds).toContain('del');
    expect(diff).toContain('-const a = 1;');
    expect(diff).toContain('+const a = 2;');
  });
  it('passes an apply_patch body through and ignores other tools', () => {
    expect(diffForTool('apply_patch', { input: '*** Begin Patch\n+x' })).toBe('*** Begin Patch\n+x');
    expect(diffForTool('read', { path: 'a' })).toBeUndefined();
  });
});

describe('context meter figure', () => {
  const models: ModelInfo[] = [{ ref: 'p/m', provider: 'p', id: 'm', contextWindow: 100_000, reasoning: false, demo: false, hasKey: true }];
  const run = (over: object): Turn => ({ kind: 'assistant', id: 'a', parts: [], status: 'done', demo: false, lastSeq: 0, callTurn: 0, ...over });
  it('measures from the last finished run and its model window', () => {
    const turns: Turn[] = [run({ usage: usage(100, 10), model: 'p/m' }), run({ usage: usage(5000, 200, 1000), answeredBy: 'p/m' })];
    expect(contextFigure(turns, models, 'p/m')).toEqual({ used: 6200, window: 100_000, estimated: false });
  });
  it('a later compaction replaces the figure', () => {
    const turns: Turn[] = [run({ usage: usage(90_000, 10), model: 'p/m' }), run({ parts: [{ kind: 'compaction', phase: 'end', tokensBefore: 90_000, tokensAfter: 8000 }] })];
    expect(contextFigure(turns, models, 'p/m')?.used).toBe(8000);
  });
  it('estimates from the text after a reload', () => {
    const turns: Turn[] = [{ kind: 'user', id: 'u', text: 'x'.repeat(400), ts: 0 }];
    expect(contextFigure(turns, models, 'p/m')).toEqual({ used: 100, window: 100_000, estimated: true });
    expect(contextFigure([], models, 'p/m')).toBeUndefined();
  });
});

describe('shiki highlighting (JavaScript regex engine, languages on demand)', () => {
  it('colours TypeScript with a light and a dark colour per token; unknown languages stay plain', async () => {
    const lines = await highlight('const a: number = 1;\nlet b = "x";', 'ts');
    expect(lines).toHaveLength(2);
    const kw = lines![0]!.find((t) => t.content === 'const')!;
    expect(kw.htmlStyle).toEqual({ '--shiki-light': expect.stringMatching(/^#/), '--shiki-dark': expect.stringMatching(/^#/) });
    expect(lines!.flat().map((t) => t.content).join('')).toBe('const a: number = 1;let b = "x";');
    expect(await highlight('x', 'no-such-lang')).toBeUndefined();
  });
});
