/** T4 (inventory §10, §21 case 13): caps as a share of the window, head + important tail, aggregate budget. */
import { describe, expect, it } from 'vitest';
import type { Message, ToolResultMessage } from '../../main/engine/messages.js';
import {
  applyToolResultBudget,
  hasImportantTail,
  MIN_KEEP_CHARS,
  MIDDLE_OMITTED_NOTE,
  reducibleToolResultChars,
  shrinkToolResults,
  toolResultCaps,
  truncateToolResultText,
} from '../../main/engine/attempt/tool-result-truncation.js';

const result = (content: string, id = 'c1'): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'read',
  content,
  isError: false,
  timestamp: 1,
});
const lines = (n: number, width = 79) => Array.from({ length: n }, (_, i) => `${String(i).padStart(5, '0')} ${'x'.repeat(width - 6)}`).join('\n');

describe('toolResultCaps', () => {
  it.each([
    // window, per-result, aggregate
    [128_000, 32_000, 256_000],
    [200_000, 64_000, 400_000],
    [1_000_000, 64_000, 2_000_000],
    [100_000, 32_000, 200_000],
    [99_999, 16_000, 199_998],
    [20_000, 16_000, 64_000],
    [8_000, 9_600, 38_400],
    [1_000, MIN_KEEP_CHARS, 8_000],
  ])('window %i → per result %i, aggregate %i', (window, per, agg) => {
    expect(toolResultCaps(window)).toEqual({ perResultChars: per, aggregateChars: agg });
  });

  it('an override replaces the derived cap (never below the minimum kept)', () => {
    expect(toolResultCaps(128_000, 10_000).perResultChars).toBe(10_000);
    expect(toolResultCaps(128_000, 10).perResultChars).toBe(MIN_KEEP_CHARS);
  });
});

describe('hasImportantTail', () => {
  it.each([
    ['...\nError: ENOENT: no such file', true],
    ['...\nTraceback (most recent call last):\n  File "x.py"', true],
    ['...\n[exit code 1]', true],
    ['{"a": [1, 2, 3]\n}', true],
    ['Tests: 3 passed, 1 failed', true],
    ['lorem ipsum dolor sit amet', false],
    ['', false],
  ])('%j → %s', (text, expected) => {
    expect(hasImportantTail(text)).toBe(expected);
  });
});

describe('truncateToolResultText', () => {
  it('leaves text that fits untouched', () => {
    const t = lines(10);
    expect(truncateToolResultText(t, 5_000)).toBe(t);
  });

  it('keeps the head, cuts at a newline in the last 20 %, and says how much was cut', () => {
    const text = lines(1000); // 80 000 chars
    const out = truncateToolResultText(text, 10_000);
    const [head, note] = out.split('\n[... ');
    expect(text.startsWith(head!)).toBe(true);
    expect(head!.length).toBeLessThanOrEqual(10_000);
    expect(head!.length).toBeGreaterThan(8_000);
    expect(text[head!.length]).toBe('\n'); // cut exactly at a line end
    expect(note).toBe(`${text.length - head!.length} more characters truncated; rerun with narrower args if needed]`);
  });

  it('keeps an important tail next to the head (≤ min(30 %, 4 000) characters)', () => {
    const text = `${lines(1000)}\nError: build failed with 3 errors`;
    const out = truncateToolResultText(text, 10_000);
    expect(out).toContain(MIDDLE_OMITTED_NOTE);
    expect(out).toContain('Error: build failed with 3 errors');
    const tail = out.split(MIDDLE_OMITTED_NOTE)[1]!.split('\n[... ')[0]!;
    expect(tail.length).toBeLessThanOrEqual(3_000);
    expect(text.endsWith(tail)).toBe(true);
  });

  it('never keeps fewer than 2 000 characters (§21: "keeps > 2000 chars")', () => {
    const text = lines(1000);
    const out = truncateToolResultText(text, 10);
    expect(out.split('\n[... ')[0]!.length).toBeGreaterThan(1_600);
    expect(out.split('\n[... ')[0]!.length).toBeLessThanOrEqual(MIN_KEEP_CHARS);
  });

  it('cuts a single line without newlines at the budget', () => {
    const out = truncateToolResultText('y'.repeat(50_000), 4_000);
    expect(out.startsWith('y'.repeat(4_000) + '\n[... 46000 more')).toBe(true);
  });
});

describe('applyToolResultBudget', () => {
  const caps = { perResultChars: 10_000, aggregateChars: 40_000 };

  it('caps each result and reuses unchanged messages', () => {
    const small = result('ok', 'a');
    const big = result(lines(500), 'b');
    const user: Message = { role: 'user', content: 'hi', timestamp: 1 };
    const r = applyToolResultBudget([user, small, big], caps);
    expect(r.messages[0]).toBe(user);
    expect(r.messages[1]).toBe(small);
    expect((r.messages[2] as ToolResultMessage).content.length).toBeLessThan(10_200);
    expect(r.truncated).toBe(1);
    expect(r.removedChars).toBe(big.content.length - (r.messages[2] as ToolResultMessage).content.length);
  });

  it('three medium results that pass the per-result cap still count against the aggregate (§21 case 13)', () => {
    const medium = () => 'm'.repeat(9_000);
    const r = applyToolResultBudget([result(medium(), 'a'), result(medium(), 'b'), result(medium(), 'c'), result(medium(), 'd'), result(medium(), 'e')], caps);
    const sizes = r.messages.map((m) => (m as ToolResultMessage).content.length);
    // Newest four fit (36 000); the oldest gets the 4 000 left, cut with a note.
    expect(sizes.slice(1)).toEqual([9_000, 9_000, 9_000, 9_000]);
    expect(sizes[0]).toBeLessThan(4_200);
    expect(r.truncated).toBe(1);
  });

  it('elides older results once too little room is left, saying why', () => {
    const r = applyToolResultBudget([result('o'.repeat(5_000), 'old'), result('n'.repeat(39_000), 'new')], { perResultChars: 40_000, aggregateChars: 40_000 });
    expect((r.messages[0] as ToolResultMessage).content).toMatch(/^\[tool result elided: aggregate tool-result budget exceeded \(5000 characters\)/);
    expect((r.messages[1] as ToolResultMessage).content).toHaveLength(39_000);
  });
});

describe('shrinkToolResults / reducibleToolResultChars', () => {
  it('frees about the requested characters, oldest first, each keeping the minimum', () => {
    const ms = [result(lines(200), 'a'), result(lines(200), 'b')]; // 16 000 each
    expect(reducibleToolResultChars(ms)).toBe(2 * (16_000 - 1 - MIN_KEEP_CHARS));
    const r = shrinkToolResults(ms, 5_000);
    expect(r.truncated).toBe(1);
    expect((r.messages[1] as ToolResultMessage).content).toBe(ms[1]!.content);
    expect(r.removedChars).toBeGreaterThanOrEqual(4_900);
    const all = shrinkToolResults(ms, Number.POSITIVE_INFINITY);
    expect(all.truncated).toBe(2);
    expect(reducibleToolResultChars(all.messages)).toBe(0);
  });

  it('small results are not worth shrinking', () => {
    expect(reducibleToolResultChars([result('x'.repeat(2_500))])).toBe(0);
    expect(shrinkToolResults([result('x'.repeat(2_500))], 1_000).truncated).toBe(0);
  });
});
