/** One errno → text table (main/errors/fs-errors.ts) for the data folder's check and a restore step: every message either printed before it was shared. */
import { describe, expect, it } from 'vitest';
import { ApplyStepError } from '../../main/checkpoints/apply.js';
import { describeFsError } from '../../main/errors/fs-errors.js';

const errno = (code: string, message = `${code}: something, open '/x/y'`) => Object.assign(new Error(message), { code });

describe('the errno texts', () => {
  it.each([
    ['EACCES', 'permission denied'],
    ['EPERM', 'operation not permitted'],
    ['EROFS', 'the file system is read-only'],
    ['ENOSPC', 'the disk is full'],
    ['EDQUOT', 'the disk quota is exceeded'],
    ['ENAMETOOLONG', 'the path is too long'],
    ['ENOTDIR', 'a part of the path is a file'],
    ['ELOOP', 'too many symbolic links'],
    ['EISDIR', 'a folder is in the way'],
    ['ENOTEMPTY', 'a folder is in the way'],
    ['EEXIST', 'something is in the way'],
    ['EBUSY', 'it is busy'],
    ['ETXTBSY', 'it is a program that is running'],
    ['EIO', 'an input/output error'],
  ])('%s: "%s" for the data folder and for a restore step', (code, text) => {
    expect(describeFsError(errno(code))).toBe(text);
    expect(new ApplyStepError('a/b.txt', errno(code)).message).toBe(`a/b.txt: ${text}`);
  });

  it('an unknown code: the message without its prefix and path (data folder), the code (restore step); never a prototype key', () => {
    expect(describeFsError(errno('EXDEV', "EXDEV: cross-device link not permitted, rename '/a' -> '/b'"))).toBe('cross-device link not permitted');
    expect(describeFsError(errno('EMFILE', "EMFILE: too many open files, open '/a'"))).toBe('too many open files');
    expect(new ApplyStepError('x', errno('EMFILE')).message).toBe('x: EMFILE');
    expect(new ApplyStepError('x', errno('toString')).message).toBe('x: toString');
    expect(new ApplyStepError('x', new Error('plain\nsecond')).message).toBe('x: plain');
  });
});
