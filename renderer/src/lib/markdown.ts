/**
 * Splits markdown into top-level blocks so a streaming message re-parses and re-renders only its last block:
 * the blocks before it are complete and memoised. Parsing itself is react-markdown's (remark + GFM); this only
 * finds safe cut points — blank lines outside fenced code, not inside a list or an indented continuation.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}([-*+]|\d{1,9}[.)])\s/;

export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  let blank = false;

  const flush = (): void => {
    if (current.length > 0) blocks.push(current.join('\n'));
    current = [];
  };

  for (const line of text.split('\n')) {
    const m = FENCE.exec(line);
    if (fence !== undefined) {
      current.push(line);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined;
      continue;
    }
    if (line.trim() === '') {
      blank = current.length > 0;
      if (blank) current.push(line);
      continue;
    }
    if (blank) {
      const continues = /^\s/.test(line) || (LIST_ITEM.test(line) && LIST_ITEM.test(current[0] ?? ''));
      if (!continues) {
        while (current.length > 0 && current[current.length - 1]!.trim() === '') current.pop();
        flush();
      }
      blank = false;
    }
    if (m) fence = m[1];
    current.push(line);
  }
  while (current.length > 0 && current[current.length - 1]!.trim() === '') current.pop();
  flush();
  return blocks;
}

/** Links open outside the app only for http(s) URLs; anything else (javascript:, file:, data:) is plain text. */
export function safeHref(href: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
