/**
 * The name of the temporary file an atomic write (confined.ts `writeAtomic`) creates beside its target and renames
 * over it: `.<target name, first 200 chars>.<pid>.<8 hex>.tmp`. One place for the pattern, because a checkpoint
 * capture that walks the folder while a copy-on-write `write`/`edit` runs may see that file for a moment and must
 * leave it out (main/checkpoints/patch.ts): it never existed before the turn.
 */
import { randomBytes } from 'node:crypto';

export function tempNameFor(name: string, pid = process.pid, random = randomBytes(4).toString('hex')): string {
  return `.${name.slice(0, 200)}.${pid}.${random}.tmp`;
}

/** Whether `candidate` is a temp name an atomic write of `name` (by any process) may have created. */
export function isTempNameFor(name: string, candidate: string): boolean {
  const head = `.${name.slice(0, 200)}.`;
  return candidate.startsWith(head) && candidate.endsWith('.tmp') && /^\d+\.[0-9a-f]{8}$/.test(candidate.slice(head.length, -4));
}
