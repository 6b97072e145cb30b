/** The atomic write's temp-file name (main/tools/fs/temp-name.ts), which checkpoint patching must recognise. */
import { describe, expect, it } from 'vitest';
import { isTempNameFor, tempNameFor } from '../../main/tools/fs/temp-name.js';

describe('temp-name', () => {
  it('a name it makes is recognised for its file only', () => {
    const name = tempNameFor('notes.txt');
    expect(name).toMatch(/^\.notes\.txt\.\d+\.[0-9a-f]{8}\.tmp$/);
    expect(isTempNameFor('notes.txt', name)).toBe(true);
    expect(isTempNameFor('notes.tx', name)).toBe(false);
    expect(isTempNameFor('other.txt', name)).toBe(false);
  });
  it('a long name is cut at 200 characters in both', () => {
    const long = 'x'.repeat(300);
    expect(isTempNameFor(long, tempNameFor(long, 7, '0123abcd'))).toBe(true);
  });
  it.each([
    ['.a.1.0badf00d.tmp', true],
    ['.a.1.0BADF00D.tmp', false],
    ['.a.1.0badf00.tmp', false],
    ['.a.x.0badf00d.tmp', false],
    ['.a.1.0badf00d.tmp.bak', false],
    ['a.1.0badf00d.tmp', false],
    ['.a.1.2.0badf00d.tmp', false],
  ])('%s → %s', (candidate, expected) => {
    expect(isTempNameFor('a', candidate)).toBe(expected);
  });
});
