import { describe, expect, it } from 'vitest';
import { safeHref, splitBlocks } from '../../renderer/src/lib/markdown.js';
import { langLabel, resolveLang } from '../../renderer/src/lib/highlight.js';

describe('splitBlocks (memoised streaming: only the last block changes)', () => {
  it.each([
    ['plain text', ['plain text']],
    ['a\n\nb', ['a', 'b']],
    ['a\n\n\n\nb\n\n', ['a', 'b']],
    ['# Title\nbody', ['# Title\nbody']],
    ['```ts\nconst a = 1;\n\n\nconst b = 2;\n```\nafter', ['```ts\nconst a = 1;\n\n\nconst b = 2;\n```\nafter']],
    // mid-stream: an unclosed fence keeps everything after it in the last block
    ['intro\n\n```\nlet x\n\nlet y', ['intro', '```\nlet x\n\nlet y']],
    ['~~~\n```\n\n~~~\n\nz', ['~~~\n```\n\n~~~', 'z']],
    ['- a\n\n- b\n\npara', ['- a\n\n- b', 'para']],
    ['1. a\n\n   more\n\n2. b', ['1. a\n\n   more\n\n2. b']],
    ['| a | b |\n|---|---|\n| 1 | 2 |\n\nnext', ['| a | b |\n|---|---|\n| 1 | 2 |', 'next']],
    ['', []],
  ])('%j', (source, blocks) => {
    expect(splitBlocks(source)).toEqual(blocks);
  });

  it('a growing message keeps its earlier blocks identical', () => {
    const full = 'First paragraph.\n\n```js\nx()\n```\n\nSecond paragraph grows';
    const earlier = splitBlocks(full.slice(0, full.length - 6));
    const later = splitBlocks(full);
    expect(later.slice(0, 2)).toEqual(earlier.slice(0, 2));
  });
});

describe('safeHref', () => {
  it.each([
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['http://example.com', 'http://example.com/'],
    ['javascript:alert(1)', undefined],
    ['JaVaScRiPt:alert(1)', undefined],
    ['file:///etc/passwd', undefined],
    ['data:text/html,x', undefined],
    ['/relative', undefined],
    [undefined, undefined],
  ])('%j → %j', (href, expected) => {
    expect(safeHref(href)).toBe(expected);
  });
});

describe('code block languages', () => {
  it.each([
    ['ts', 'typescript'],
    ['TypeScript', 'typescript'],
    ['bash', 'shellscript'],
    ['py', 'python'],
    ['rust', 'rust'],
    ['brainfuck', undefined],
    ['', undefined],
  ])('%j → %j', (info, id) => {
    expect(resolveLang(info)).toBe(id);
  });
  it('labels a bare fence as text', () => {
    expect(langLabel('')).toBe('text');
    expect(langLabel(' ts ')).toBe('ts');
  });
});
