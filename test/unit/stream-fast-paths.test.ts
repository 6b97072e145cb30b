/**
 * The per-delta fast paths (issue 10's CPU row) skip work only where the full check could not find anything:
 * their predicates, and their agreement with the checks they skip.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPlain, stripThinkTags, createThinkTagFilter } from '../../main/engine/stream/think-tags.js';
import { mayEndSilentTail, ReplyGate } from '../../main/engine/stream/reply-gate.js';
import { silentTailLength } from '../../main/engine/stream/silent.js';

describe('isPlain (think-tag filter fast path)', () => {
  it.each<[string, boolean]>([
    ['', true],
    ['plain words, punctuation. and > signs', true],
    ['a<b', false],
    ['inline `code`', false],
    ['~~~', false],
    ['two\nlines', false],
    ['é 中文 😄', true],
  ])('%j → %s', (text, plain) => expect(isPlain(text)).toBe(plain));

  it('chunked pushes give the one-shot split, whatever the chunking (fast path taken or not)', () => {
    // No `</think>`: an orphan close is the one documented case where a split stream may differ (think-tags.ts).
    const piece = fc.constantFrom('a', 'b ', 'word ', '<think>', '<final>', '</final>', '`', '```\n', '\n', '~~~', '<thi', 'nk>', ' ', 'NO_REPLY');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const filter = createThinkTagFilter();
        let text = '';
        let thinking = '';
        for (const p of pieces) {
          const out = filter.push(p);
          text += out.text;
          thinking += out.thinking;
        }
        const end = filter.flush();
        expect({ text: text + end.text, thinking: thinking + end.thinking }).toEqual(stripThinkTags(pieces.join('')));
      }),
      { numRuns: 300, seed: 10 },
    );
  });
});

describe('mayEndSilentTail (reply gate fast path)', () => {
  it.each<[string, boolean]>([
    ['', true],
    ['abc', false],
    ['done.', false],
    ['a1', false],
    ['NO', true],
    ['x_', true],
    ['**', true],
    ['trailing space ', true],
    ['line\n', true],
    ['é', true],
  ])('%j → %s', (text, may) => expect(mayEndSilentTail(text)).toBe(may));

  it('when it says no, the full pattern finds no tail, whatever came before', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ minLength: 1, maxLength: 8 }), (before, delta) => {
        if (!mayEndSilentTail(delta)) expect(silentTailLength(before + delta)).toBe(0);
      }),
      { numRuns: 500, seed: 10 },
    );
  });

  it('the gate releases the same text delta by delta as in one piece', () => {
    const piece = fc.constantFrom('Hello', ' ', 'world', '.', ' NO', '_REPLY', '**', 'NO', '\n', 'ok');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), (pieces) => {
        const streamed = new ReplyGate();
        let out = '';
        for (const p of pieces) out += streamed.push(p);
        const endA = streamed.end();
        const whole = new ReplyGate();
        const once = whole.push(pieces.join(''));
        const endB = whole.end();
        expect(out + endA.release).toBe(once + endB.release);
        expect(endA.suppressed).toBe(endB.suppressed);
      }),
      { numRuns: 300, seed: 10 },
    );
  });
});
