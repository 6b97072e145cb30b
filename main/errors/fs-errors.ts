/**
 * What a failed file-system call means for a person, in a few words, by its errno code — one table for every place
 * that names one: the data folder's check (main/cli/home-check.ts, also the settings' folder picks) and a restore
 * step that failed (main/checkpoints/apply.ts).
 */

export const FS_ERROR_TEXT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  ENAMETOOLONG: 'the path is too long',
  ENOTDIR: 'a part of the path is a file',
  ELOOP: 'too many symbolic links',
  EISDIR: 'a folder is in the way',
  ENOTEMPTY: 'a folder is in the way',
  EEXIST: 'something is in the way',
  EBUSY: 'it is busy',
  ETXTBSY: 'it is a program that is running',
  EIO: 'an input/output error',
};

/** The text for `err`'s errno code, or undefined when it has none in the table. */
export function fsErrorText(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(FS_ERROR_TEXT, code) ? FS_ERROR_TEXT[code] : undefined;
}

/** "permission denied" for an errno error, else its first line without the "EACCES: " prefix and the call's path. */
export function describeFsError(err: unknown): string {
  const text = fsErrorText(err);
  if (text) return text;
  const e = err as NodeJS.ErrnoException;
  return String(e?.message ?? err).split('\n')[0]!.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
}
