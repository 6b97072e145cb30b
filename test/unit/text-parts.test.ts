import { describe, expect, it } from 'vitest';
import { TextParts } from '../../main/engine/stream/text-parts.js';

describe('TextParts: many appends, read at the end', () => {
  it.each<[string, string[]]>([
    ['nothing', []],
    ['empty pieces only', ['', '', '']],
    ['one piece', ['hello']],
    ['pieces with empties between', ['a', '', 'b', '', 'c']],
    ['exactly one batch', Array.from({ length: 512 }, (_, i) => String(i % 10))],
    ['several batches and a rest', Array.from({ length: 1300 }, (_, i) => `${i},`)],
    ['non-ASCII', ['é', '😄', '中文', '\u0000']],
  ])('%s: text is the concatenation, length its length', (_name, pieces) => {
    const parts = new TextParts();
    for (const p of pieces) parts.push(p);
    expect(parts.text).toBe(pieces.join(''));
    expect(parts.length).toBe(pieces.join('').length);
  });

  it('reading in the middle does not lose or repeat pieces', () => {
    const parts = new TextParts();
    const all: string[] = [];
    for (let i = 0; i < 2000; i++) {
      parts.push(`${i} `);
      all.push(`${i} `);
      if (i % 333 === 0) expect(parts.text).toBe(all.join(''));
    }
    expect(parts.text).toBe(all.join(''));
  });
});
