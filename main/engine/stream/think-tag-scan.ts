/**
 * E14: the lexical part of the think-tag filter (think-tags.ts): which tags are ours, recognising one at a
 * position (blanks after `<` and `/`, well-formed attributes), and whether an open inline code span closes.
 * Character codes in the hot path: the filter looks at every character of every reply.
 */

export type TagKind = 'think' | 'final';

const BASE_NAMES: ReadonlyArray<[string, TagKind]> = [
  ['think', 'think'],
  ['thinking', 'think'],
  ['thought', 'think'],
  ['antthinking', 'think'],
  ['final', 'final'],
];
const PREFIXES = ['', 'antml:', 'mm:'];

const TAG_NAMES = new Map<string, TagKind>();
const NAME_PREFIXES = new Set<string>();
for (const prefix of PREFIXES) {
  for (const [base, kind] of BASE_NAMES) {
    const name = prefix + base;
    TAG_NAMES.set(name, kind);
    for (let i = 1; i <= name.length; i++) NAME_PREFIXES.add(name.slice(0, i));
  }
}
const MAX_NAME_LENGTH = Math.max(...[...TAG_NAMES.keys()].map((n) => n.length));
/** Longest tag (with attributes) we wait for; anything longer is literal text. */
export const MAX_TAG_LENGTH = 256;

export const LT = 60; // <
export const GT = 62; // >
export const SLASH = 47;
export const NL = 10;
export const CR = 13;
export const SPACE = 32;
export const TAB = 9;
export const BACKTICK = 96;
export const TILDE = 126;

export type TagScan =
  | { status: 'match'; end: number; kind: TagKind; close: boolean; selfClosing: boolean }
  | { status: 'partial' }
  | { status: 'none' };

const isNameChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 58; /* a-z A-Z : */

export const isBlank = (c: number): boolean => c === SPACE || c === TAB || c === CR || c === NL;

/** No character that can start a tag, a code span or fence, or a new line. */
export function isPlain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === BACKTICK || c === TILDE || c === NL) return false;
  }
  return true;
}

/** Attributes as HTML writes them: names, optionally `=` a quoted or unquoted value; a quote never holds `>`. */
const ATTRIBUTES = /^(?:[ \t]+[A-Za-z_:][\w:.-]*(?:[ \t]*=[ \t]*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*[ \t]*\/?$/;

/**
 * Recognises one of our tags starting at `s[i] === '<'`; blanks are allowed after `<` and `/` (`< /think >`).
 * Bounded: looks at most MAX_TAG_LENGTH chars.
 */
export function scanTag(s: string, i: number): TagScan {
  const n = s.length;
  let j = i + 1;
  while (j < n && (s.charCodeAt(j) === SPACE || s.charCodeAt(j) === TAB) && j - i < 8) j++;
  if (j >= n) return { status: 'partial' };
  const close = s.charCodeAt(j) === SLASH;
  if (close) {
    j++;
    while (j < n && (s.charCodeAt(j) === SPACE || s.charCodeAt(j) === TAB) && j - i < 16) j++;
  }
  const nameStart = j;
  while (j < n && isNameChar(s.charCodeAt(j)) && j - nameStart <= MAX_NAME_LENGTH) j++;
  const name = s.slice(nameStart, j).toLowerCase();
  if (j >= n) return NAME_PREFIXES.has(name) || name === '' ? { status: 'partial' } : { status: 'none' };
  const kind = TAG_NAMES.get(name);
  if (kind === undefined) return { status: 'none' };
  const c = s.charCodeAt(j);
  if (c === GT) return { status: 'match', end: j + 1, kind, close, selfClosing: false };
  if (c === SLASH) {
    if (j + 1 >= n) return { status: 'partial' };
    return s.charCodeAt(j + 1) === GT
      ? { status: 'match', end: j + 2, kind, close, selfClosing: true }
      : { status: 'none' };
  }
  if (c !== SPACE && c !== TAB) return { status: 'none' };
  // Attributes: up to the first '>' on the same line, never across another '<'; they must be well-formed.
  for (let k = j + 1; k < n; k++) {
    if (k - i >= MAX_TAG_LENGTH) return { status: 'none' };
    const a = s.charCodeAt(k);
    if (a === GT) {
      if (!ATTRIBUTES.test(s.slice(j, k))) return { status: 'none' };
      const selfClosing = s.charCodeAt(k - 1) === SLASH;
      return { status: 'match', end: k + 1, kind, close, selfClosing };
    }
    if (a === LT || a === NL) return { status: 'none' };
  }
  return n - i >= MAX_TAG_LENGTH ? { status: 'none' } : { status: 'partial' };
}

/**
 * Whether an open inline code span of `len` backticks closes within `s`: 'closes' at a run of exactly `len`
 * backticks, 'breaks' at a blank line (a paragraph ends; the opening backtick was a literal one), 'open' when `s`
 * ends first. A run that reaches the end of `s` may still grow, unless `s` is the end of the message (`final`).
 */
export function spanVerdict(s: string, len: number, final = false): 'closes' | 'breaks' | 'open' {
  let run = 0;
  let blankLine = false;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === BACKTICK) {
      run++;
      continue;
    }
    if (run === len) return 'closes';
    run = 0;
    if (c === NL) {
      if (blankLine) return 'breaks';
      blankLine = true;
    } else if (c !== SPACE && c !== TAB && c !== CR) {
      blankLine = false;
    }
  }
  return final && run === len ? 'closes' : 'open';
}

/** Text held back while an inline code span around a tag is undecided; past this the tag counts as a real one. */
export const MAX_SPAN_HOLD = 4096;
