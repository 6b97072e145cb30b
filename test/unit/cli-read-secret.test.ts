/**
 * X5 "keys never echoed": `auth add` and `mcp add` read secrets typed at a terminal in raw mode (nothing echoed).
 * The key handling is a pure function (table); the terminal side runs in a real pseudo-terminal in
 * test/integration/cli-auth-tty.test.ts.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSecret, typeSecret } from '../../main/cli/read-secret.js';

describe('typeSecret', () => {
  it.each([
    ['plain key then Enter', '', 'sk-abc\r', false, { done: true, value: 'sk-abc' }],
    ['in pieces: not done yet', 'sk-', 'abc', false, { done: false, value: 'sk-abc' }],
    ['backspace edits', '', 'sk-abx\x7fc\r', false, { done: true, value: 'sk-abc' }],
    ['ctrl-h edits too', '', 'ab\bc\n', false, { done: true, value: 'ac' }],
    ['ctrl-u clears', '', 'wrong\x15right\r', false, { done: true, value: 'right' }],
    ['ctrl-d ends', 'key', '\x04', false, { done: true, value: 'key' }],
    ['ctrl-c cancels', 'key', '\x03', false, { cancelled: true }],
    ['a bracketed paste: the markers go', '', '\x1b[200~sk-pasted\x1b[201~\r', false, { done: true, value: 'sk-pasted' }],
    ['arrow keys go', '', 'a\x1b[Db\x1bOC\r', false, { done: true, value: 'ab' }],
    ['other controls go', '', 'a\x00\x07\tb\r', false, { done: true, value: 'ab' }],
    ['lines: Enter starts a new line', '', 'one\rtwo\r', true, { done: false, value: 'one\ntwo\n' }],
    ['lines: CRLF once', '', 'one\r\ntwo', true, { done: false, value: 'one\ntwo' }],
    ['lines: ctrl-d ends', 'one\n', 'two\x04', true, { done: true, value: 'one\ntwo' }],
    ['lines: backspace stays in its line', 'one\n', '\x7f\x7f', true, { done: false, value: 'one\n' }],
    ['lines: ctrl-u clears the line only', 'one\n', 'tw\x15two', true, { done: false, value: 'one\ntwo' }],
  ])('%s', (_l, sofar, chunk, lines, out) => {
    expect(typeSecret(sofar, chunk, lines)).toEqual(out);
  });
});

describe('readSecret', () => {
  it('piped input is read whole, without a prompt', async () => {
    const input = new PassThrough();
    const prompts: string[] = [];
    const p = readSecret(input, (s) => prompts.push(s), 'Paste: ');
    input.end('sk-piped\n');
    expect(await p).toBe('sk-piped\n');
    expect(prompts).toEqual([]);
  });

  it('on a terminal: raw mode while typing, restored after; the prompt and a new line, never the key', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[], setRawMode(m: boolean) { this.modes.push(m); return this; } });
    const prompts: string[] = [];
    const p = readSecret(input, (s) => prompts.push(s), 'Paste: ');
    input.write('sk-ty');
    input.write('ped\r');
    expect(await p).toBe('sk-typed');
    expect(input.modes).toEqual([true, false]);
    expect(prompts).toEqual(['Paste: ', '\n']);
  });

  it('Ctrl-C on a terminal cancels (raw mode restored)', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[], setRawMode(m: boolean) { this.modes.push(m); return this; } });
    const p = readSecret(input, () => undefined, 'Paste: ');
    input.write('sk-\x03');
    await expect(p).rejects.toMatchObject({ name: 'CancelledError' });
    expect(input.modes).toEqual([true, false]);
  });
});
