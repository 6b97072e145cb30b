/**
 * Checks the data folder before anything else touches it, so a bad `--home` gets one line naming the problem
 * (exit 2) instead of a raw errno, a stack trace or a hang (Node's recursive mkdir never returns under /proc).
 */
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from './usage-error.js';

const ERRNO_TEXT: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  ENAMETOOLONG: 'the path is too long',
  ENOTDIR: 'a part of the path is a file',
  ELOOP: 'too many symbolic links',
  EIO: 'an input/output error',
};

/** "permission denied" for an errno error, else its first line without the "EACCES: " prefix. */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code && ERRNO_TEXT[e.code]) return ERRNO_TEXT[e.code]!;
  return String(e?.message ?? err).split('\n')[0]!.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
}

const SYSTEM_ROOTS = /^\/(proc|sys|dev)(\/|$)/;

/**
 * Makes sure `home` is (or can become) a writable folder. `label` names where it came from, e.g. "--home" or
 * "AGENTDESK_HOME".
 */
export async function prepareHome(home: string, label: string): Promise<string> {
  const full = resolve(home);
  const where = `${label} ${home}`;
  if (process.platform !== 'win32' && SYSTEM_ROOTS.test(full)) {
    throw new UsageError(`${where}: ${full.split('/')[1]}/ is a system folder and cannot hold AgentDesk data`);
  }
  const missing: string[] = [];
  let existing = full;
  for (;;) {
    try {
      const st = await stat(existing);
      if (!st.isDirectory()) {
        throw new UsageError(existing === full ? `${where} is a file, not a folder` : `${where}: ${existing} is a file, not a folder`);
      }
      break;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UsageError(`${where} cannot be used: ${describeFsError(err)}`);
      const parent = dirname(existing);
      if (parent === existing) throw new UsageError(`${where} cannot be used: ${describeFsError(err)}`);
      missing.unshift(existing);
      existing = parent;
    }
  }
  for (const dir of missing) {
    try {
      await mkdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new UsageError(`${where} cannot be created: ${describeFsError(err)}`);
    }
  }
  const probe = resolve(full, `.agentdesk-write-test-${process.pid}`);
  try {
    await writeFile(probe, '');
    await unlink(probe);
  } catch (err) {
    throw new UsageError(`${where} is not writable: ${describeFsError(err)}`);
  }
  return full;
}
