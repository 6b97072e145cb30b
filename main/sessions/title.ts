/** Session titles: one line, whitespace collapsed, at most `max` characters (code points), "…" when cut. */
export const AUTO_TITLE_MAX = 60;
export const USER_TITLE_MAX = 120;

export function normalizeTitle(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(oneLine);
  if (chars.length <= max) return oneLine;
  return chars.slice(0, max - 1).join('').trimEnd() + '…';
}

export const autoTitle = (firstUserText: string): string => normalizeTitle(firstUserText, AUTO_TITLE_MAX);
