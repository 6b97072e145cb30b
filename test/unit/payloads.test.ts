import { describe, expect, it } from 'vitest';
import { buildPayloads, isSilentReply, TOOL_ERROR_FALLBACK } from '../../main/engine/stream/payloads.js';

describe('isSilentReply', () => {
  it.each([
    ['NO_REPLY', true],
    ['  no_reply  ', true],
    ['"NO_REPLY"', true],
    ['**NO_REPLY**', true],
    ['NO_REPLY.', true],
    ['Here is a helpful response.\n\nNO_REPLY', false],
    ['No reply needed', false],
    ['NO', false],
    ['', false],
  ])('%j → %s', (text, silent) => {
    expect(isSilentReply(text)).toBe(silent);
  });
});

describe('buildPayloads', () => {
  it.each([
    [{ texts: ['a', ' NO_REPLY ', 'b '], toolErrors: 0 }, [{ text: 'a' }, { text: 'b' }]],
    [{ texts: ['a'], errorText: 'boom', toolErrors: 0 }, [{ text: 'a' }, { text: 'boom', isError: true }]],
    [{ texts: [], toolErrors: 1 }, [{ text: TOOL_ERROR_FALLBACK, isError: true }]],
    [{ texts: ['NO_REPLY'], toolErrors: 0 }, []],
  ])('%j', (input, expected) => {
    expect(buildPayloads(input)).toEqual(expected);
  });
});
