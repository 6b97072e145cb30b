/**
 * X2: the name a restore gives what it moves aside (something not in any checkpoint standing where it writes):
 * `<name>.agentdesk-kept-<time>` beside it. A name too long for that (a file name is at most 255 bytes on Linux and
 * macOS, 255 UTF-16 units on Windows — never more than its UTF-8 bytes) is cut, on a character boundary, and a short
 * hash of the whole name added, so the new name always fits and two long names that begin alike never meet. The undo
 * moves it back by the name recorded with the restore (`keptNames`), checked against this function.
 */
import { createHash } from 'node:crypto';

/** Longest file name, in UTF-8 bytes, that every file system a workspace lives on takes. */
export const NAME_MAX_BYTES = 255;

/** `s` cut to at most `max` UTF-8 bytes, never inside a character (nor between the halves of a surrogate pair). */
function cutUtf8(s: string, max: number): string {
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    out += ch;
  }
  return out;
}

/** The name `rel` (a workspace-relative path, or a bare name) is moved aside to by a restore stamped `at`. */
export function keptAsideName(rel: string, at: number): string {
  const slash = rel.lastIndexOf('/');
  const dir = rel.slice(0, slash + 1);
  const name = rel.slice(slash + 1);
  const suffix = `.agentdesk-kept-${at}`;
  if (Buffer.byteLength(name) + Buffer.byteLength(suffix) <= NAME_MAX_BYTES) return `${dir}${name}${suffix}`;
  const tag = `~${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  return `${dir}${cutUtf8(name, NAME_MAX_BYTES - Buffer.byteLength(suffix) - tag.length)}${tag}${suffix}`;
}

/**
 * The path `aside` was moved aside from by a restore stamped `at`, or undefined when it is no such name: from the
 * restore's record of it (`names`), else (a short name, or a record from before names were kept) by cutting the
 * suffix — either way only if moving `rel` aside gives exactly `aside` (a crafted log moves nothing else).
 */
export function keptAsideOrigin(aside: string, at: number, names?: Readonly<Record<string, string>>): string | undefined {
  const named = names && Object.hasOwn(names, aside) ? names[aside] : undefined;
  const rel = typeof named === 'string' ? named : aside.slice(0, -keptAsideName('', at).length);
  return rel && keptAsideName(rel, at) === aside ? rel : undefined;
}
