import { describe, expect, it } from 'vitest';
import { parseBlocks, parseInline } from '../../renderer/src/lib/markdown.js';

describe('parseBlocks', () => {
  it.each([
    ['plain text', [{ kind: 'paragraph', text: 'plain text' }]],
    ['# Title\nbody', [{ kind: 'heading', level: 1, text: 'Title' }, { kind: 'paragraph', text: 'body' }]],
    ['```ts\nconst a = 1;\n```', [{ kind: 'code', lang: 'ts', text: 'const a = 1;' }]],
    // Mid-stream: an unclosed fence is code to the end, so a half-written block never flashes as prose.
    ['```\nlet x', [{ kind: 'code', lang: '', text: 'let x' }]],
    ['- a\n- b', [{ kind: 'list', ordered: false, items: ['a', 'b'] }]],
    ['1. a\n2. b', [{ kind: 'list', ordered: true, items: ['a', 'b'] }]],
    ['> quoted', [{ kind: 'quote', text: 'quoted' }]],
  ])('%j', (source, blocks) => {
    expect(parseBlocks(source)).toEqual(blocks);
  });
});

describe('parseInline', () => {
  it('keeps snake_case identifiers as text (no accidental italics)', () => {
    expect(parseInline('set ANTHROPIC_API_KEY now')).toEqual([{ kind: 'text', text: 'set ANTHROPIC_API_KEY now' }]);
  });

  it('parses code, bold and links without producing HTML', () => {
    const parts = parseInline('run `ls` **now** see [docs](https://example.com)');
    expect(parts).toContainEqual({ kind: 'code', text: 'ls' });
    expect(parts).toContainEqual({ kind: 'strong', text: 'now' });
    expect(parts).toContainEqual({ kind: 'link', text: 'docs', href: 'https://example.com' });
  });

  it('does not turn javascript: URLs into links', () => {
    const parts = parseInline('[x](javascript:alert(1))');
    expect(parts.some((p) => p.kind === 'link')).toBe(false);
  });
});
