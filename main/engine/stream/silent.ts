/**
 * The silent reply token (E16, inventory §13): a model that has nothing to say answers `NO_REPLY` and nothing is
 * delivered. Silent: the token alone (any case, whitespace, quotes, `**` or edge punctuation around it), the JSON
 * string `"NO_REPLY"`, `{"action":"NO_REPLY"}`, and a bare "think" reasoning preamble ending in the token. Not silent:
 * real text followed by the token (#19537) — the text is delivered and a trailing token set off by whitespace or
 * `**` is stripped from it; a token glued to the reply's first word ("NO_REPLYThe…") is dropped from it.
 */
export const SILENT_REPLY_TOKEN = 'NO_REPLY';

const EDGE = /^[\s"'*`.!,:;-]+|[\s"'*`.!,:;-]+$/g;
const JSON_ACTION = '{"action":"no_reply"}';

const squash = (text: string): string => text.replace(/\s+/g, '').toLowerCase();

/**
 * A reasoning preamble some models print as plain text: a first line "think", then the reasoning with no blank line
 * (a blank line starts an answer). Followed by the token, the whole reply is silent (OpenClaw #66701).
 */
const BARE_THINK = /^\s*think\n(?:(?!\n\s*\n)[\s\S])*?NO_REPLY[\s"'*`.!,:;-]*$/i;

/** True when the whole text is a silent reply. */
export function isSilentReply(text: string): boolean {
  if (text.replace(EDGE, '').toUpperCase() === SILENT_REPLY_TOKEN) return true;
  if (BARE_THINK.test(text)) return true;
  return squash(text) === JSON_ACTION;
}

/**
 * True while the text streamed so far could still become a silent reply, so it must be held back: a prefix of the
 * token in any case ("NO", "No_", "no_rep" — a mixed-case "No_Reply" is silent too, so its start may not stream out;
 * an ordinary "No, …" waits for one more delta), the token with edge punctuation, the JSON forms, and a bare
 * "think" preamble until a blank line ends it.
 */
export function couldBeSilentReply(soFar: string): boolean {
  const core = soFar.replace(/^[\s"'*`]+/, '');
  if (core === '') return true;
  if (SILENT_REPLY_TOKEN.startsWith(core.toUpperCase())) return true;
  if (core.replace(/[\s"'*`.!,:;-]+$/, '').toUpperCase() === SILENT_REPLY_TOKEN) return true;
  if ('think\n'.startsWith(core) || (core.startsWith('think\n') && !/\n\s*\n/.test(core))) return true;
  const squashed = squash(soFar);
  return squashed.length > 0 && JSON_ACTION.startsWith(squashed);
}

/** The token glued to the first word of a real reply ("NO_REPLYThe user is saying…"): a model's slip. */
const GLUED = /^\s*NO_REPLY(?=\p{L})/iu;

/** Drops a glued leading token: "NO_REPLYThe user is saying" → "The user is saying". */
export function stripLeadingSilentToken(text: string): string {
  const m = GLUED.exec(text);
  return m ? text.slice(m[0].length) : text;
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
