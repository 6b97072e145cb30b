import { describe, expect, it } from 'vitest';
import { BlockChunker } from '../../main/engine/stream/block-chunker.js';

/** Streams text in chunks of `step` and returns every block, flush included. */
function chunk(text: string, sizes: { min: number; max: number }, step = 7): string[] {
  const c = new BlockChunker(sizes);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += step) out.push(...c.append(text.slice(i, i + step)));
  out.push(...c.flush());
  return out;
}

const para = (n: number, ch = 'a') => `${ch.repeat(n - 1)}.`;

describe('BlockChunker (E15, inventory §17)', () => {
  it.each<[string, string, { min: number; max: number }, string[]]>([
    ['short text is one block at flush', 'Hello there.', { min: 20, max: 40 }, ['Hello there.']],
    ['breaks at a paragraph', `${para(25)}\n\n${para(25)}`, { min: 20, max: 40 }, [`${para(25)}\n\n`, para(25)]],
    ['paragraph beats newline and sentence', `${para(12)} b.\nccc\n\n${para(10)}`, { min: 10, max: 40 }, [`${para(12)} b.\nccc\n\n`, para(10)]],
    ['newline when no paragraph fits', `${'a'.repeat(30)}\n${'b'.repeat(30)}`, { min: 20, max: 40 }, [`${'a'.repeat(30)}\n`, 'b'.repeat(30)]],
    ['sentence when no newline fits', `${'a'.repeat(24)}. ${'b'.repeat(30)}`, { min: 20, max: 40 }, [`${'a'.repeat(24)}. `, 'b'.repeat(30)]],
    ['whitespace when no sentence fits', `${'a'.repeat(24)} ${'b'.repeat(30)}`, { min: 20, max: 40 }, [`${'a'.repeat(24)} `, 'b'.repeat(30)]],
    ['hard cut at max', 'x'.repeat(90), { min: 20, max: 40 }, ['x'.repeat(40), 'x'.repeat(40), 'x'.repeat(10)]],
  ])('%s', (_name, text, sizes, expected) => {
    const blocks = chunk(text, sizes);
    expect(blocks).toEqual(expected);
    expect(blocks.join('')).toBe(text);
  });

  it('never breaks inside a fence that fits', () => {
    const text = `Intro line here.\n\n\`\`\`ts\n${'const a = 1;\n'.repeat(3)}\n\nmore code\n\`\`\`\n\nAfter.`;
    const blocks = chunk(text, { min: 10, max: 200 });
    expect(blocks.join('')).toBe(text);
    for (const b of blocks) expect((b.match(/```/g) ?? []).length % 2).toBe(0);
  });

  it('a fence longer than max is closed and reopened at a line', () => {
    const text = `\`\`\`py\n${'print(1)\n'.repeat(12)}\`\`\`\n`;
    const blocks = chunk(text, { min: 20, max: 50 });
    for (const b of blocks) {
      expect(b.length).toBeLessThanOrEqual(50 + 4);
      expect((b.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(blocks[1]!.startsWith('```py\n')).toBe(true);
    expect(blocks.join('').replace(/```\n```py\n/g, '')).toBe(text);
  });

  it('holds a short tail until more text or the end', () => {
    const c = new BlockChunker({ min: 20, max: 40 });
    expect(c.append('short')).toEqual([]);
    expect(c.pending).toBe('short');
    expect(c.flush()).toEqual(['short']);
    expect(c.flush()).toEqual([]);
  });
});
