/**
 * Checks the data folder before anything else touches it, so a bad `--home` gets one line naming the problem
 * (exit 2) instead of a raw errno, a stack trace or a hang (Node's recursive mkdir never returns under /proc).
 */
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { describeFsError } from '../errors/fs-errors.js';
import { UsageError } from './usage-error.js';

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
