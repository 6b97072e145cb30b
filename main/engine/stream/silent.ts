/**
 * The silent reply token (E16, inventory §13): a model that has nothing to say answers `NO_REPLY` and nothing is
 * delivered. Silent: the token alone (any case, whitespace, quotes, `**` or edge punctuation around it), the JSON
 * string `"NO_REPLY"`, and `{"action":"NO_REPLY"}`. Not silent: real text followed by the token (#19537) — the
 * text is delivered and a trailing token set off by whitespace or `**` is stripped from it.
 */
export const SILENT_REPLY_TOKEN = 'NO_REPLY';

const EDGE = /^[\s"'*`.!,:;-]+|[\s"'*`.!,:;-]+$/g;
const JSON_ACTION = '{"action":"no_reply"}';

const squash = (text: string): string => text.replace(/\s+/g, '').toLowerCase();

/** True when the whole text is a silent reply. */
export function isSilentReply(text: string): boolean {
  if (text.replace(EDGE, '').toUpperCase() === SILENT_REPLY_TOKEN) return true;
  return squash(text) === JSON_ACTION;
}

/**
 * True while the text streamed so far could still become a silent reply, so it must be held back. The bare token
 * is matched in one case only (`NO`, `no_`), so an ordinary "No, …" is not delayed past its second character.
 */
export function couldBeSilentReply(soFar: string): boolean {
  const core = soFar.replace(/^[\s"'*`]+/, '');
  if (core === '') return true;
  const sameCase = core === core.toUpperCase() || core === core.toLowerCase();
  const bare = core.replace(/[\s"'*`.!,:;-]+$/, '');
  if (sameCase && SILENT_REPLY_TOKEN.startsWith(bare.toUpperCase()) && bare.length > 0) return true;
  if (sameCase && bare.toUpperCase() === SILENT_REPLY_TOKEN) return true;
  const squashed = squash(soFar);
  return squashed.length > 0 && JSON_ACTION.startsWith(squashed);
}

const TRAILING = /(^|\s|\*\*)\**NO_REPLY\**\s*$/;

/** Removes a trailing token set off by whitespace or `**` (`"😄 NO_REPLY"` → `"😄"`; `"interject.NO_REPLY"` stays). */
export function stripSilentToken(text: string): string {
  const m = TRAILING.exec(text);
  if (!m) return text;
  return text.slice(0, m.index + m[1]!.length).replace(/(\s|\*\*)+$/, '');
}

/**
 * Length of the tail of `text` that could still grow into a trailing token (`… NO`, `… NO_REP`), so a stream can
 * hold it back. Only an upper-case tail of at least two characters set off by whitespace counts.
 */
export function silentTailLength(text: string): number {
  const m = /(^|\s)(\**)([A-Z_]+)(\**)\s*$/.exec(text);
  if (!m) return 0;
  const word = m[3]!;
  if (word.length < 2 || !SILENT_REPLY_TOKEN.startsWith(word)) return 0;
  return text.length - (m.index + m[1]!.length);
}
