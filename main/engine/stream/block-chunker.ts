/**
 * Block replies (E15, inventory §17): streamed reply text cut into blocks of min…max characters, breaking at the
 * best place available — paragraph › newline › sentence › whitespace › hard cut — and never inside a code fence
 * (a fence longer than max is cut at a line, closed, and reopened in the next block). Blocks are exact slices of
 * the input (their concatenation is the text) except where a fence had to be closed and reopened. `flush` ends
 * the message (text end, message end, or a tool starting) and returns whatever is pending.
 */
export interface ChunkSizes {
  min: number;
  max: number;
}

export const DEFAULT_CHUNK_SIZES: ChunkSizes = { min: 800, max: 1200 };

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface FenceState {
  /** The opening marker and info string of the fence open at `pos`, or null. */
  open: { marker: string; info: string } | null;
}

/** Fence state after scanning `text` up to `pos` (line-based). */
function fenceAt(text: string, pos: number): FenceState {
  let open: FenceState['open'] = null;
  let lineStart = 0;
  while (lineStart < pos) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? text.length : nl;
    if (lineEnd >= pos && nl < 0) break; // an unfinished last line cannot toggle yet
    const m = FENCE_LINE.exec(text.slice(lineStart, lineEnd));
    if (m) {
      const marker = m[1]!;
      if (!open) open = { marker, info: m[2]!.trim() };
      else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && m[2]!.trim() === '') open = null;
    }
    if (nl < 0) break;
    lineStart = nl + 1;
  }
  return { open };
}

/** Best break (the index where the next block starts) in text[min..limit], or -1. */
function findBreak(text: string, min: number, limit: number, paragraphOnly: boolean): number {
  const window = (re: RegExp): number => {
    let best = -1;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const end = m.index + m[0].length;
      if (end > limit) break;
      if (end >= min && !fenceAt(text, end).open) best = end;
    }
    return best;
  };
  const preferences = paragraphOnly ? [/\n\n+/g] : [/\n\n+/g, /\n/g, /[.!?]["')\]]*[ \t]+/g, /[ \t]+/g];
  for (const re of preferences) {
    const at = window(re);
    if (at >= 0) return at;
  }
  return -1;
}

/** Where the last paragraph break (`\n\n`) of `text` ends, or -1. */
function lastParagraphEnd(text: string): number {
  const i = text.lastIndexOf('\n\n');
  return i < 0 ? -1 : i + 2;
}

export class BlockChunker {
  private buffer = '';
  /**
   * Where the buffer's last paragraph break ends (-1: none), and whether it ends in a newline: kept up to date
   * from each appended piece, so a delta that cannot complete a block costs O(delta), not a scan of the buffer.
   */
  private paragraphEnd = -1;
  private endsInNewline = false;

  constructor(private readonly sizes: ChunkSizes = DEFAULT_CHUNK_SIZES) {}

  /** Adds streamed text; returns the blocks it completed. */
  append(text: string): string[] {
    if (text === '') return [];
    const at = this.buffer.length;
    if (this.endsInNewline && text.charCodeAt(0) === 10) this.paragraphEnd = at + 1;
    const inText = lastParagraphEnd(text);
    if (inText >= 0) this.paragraphEnd = at + inText;
    this.endsInNewline = text.charCodeAt(text.length - 1) === 10;
    this.buffer += text;
    const out: string[] = [];
    for (;;) {
      const block = this.next(false);
      if (block === undefined) break;
      out.push(block);
    }
    return out;
  }

  /** Ends the current text: returns the pending rest as blocks (possibly none). */
  flush(): string[] {
    const out: string[] = [];
    while (this.buffer.length > this.sizes.max) {
      const block = this.next(true);
      if (block === undefined) break;
      out.push(block);
    }
    if (this.buffer !== '') out.push(this.buffer);
    this.setBuffer('');
    return out;
  }

  get pending(): string {
    return this.buffer;
  }

  private next(ending: boolean): string | undefined {
    const { min, max } = this.sizes;
    const text = this.buffer;
    if (text.length < min) return undefined;
    // Before max only a paragraph break ending at or after min can cut (findBreak would scan to find none).
    if (!ending && text.length < max && this.paragraphEnd < min) return undefined;
    // While more text may come and max is not reached, only a paragraph break is worth cutting at.
    const at = findBreak(text, min, Math.min(max, text.length), !ending && text.length < max);
    if (at > 0) return this.cut(at);
    if (text.length <= max) return undefined;
    // Over max with no clean break: cut at the last line inside a fence (close and reopen it), else hard.
    const fence = fenceAt(text, max).open;
    if (fence) {
      const nl = text.lastIndexOf('\n', max - 1);
      const reopen = `${fence.marker}${fence.info}\n`;
      if (nl + 1 > reopen.length && fenceAt(text, nl + 1).open) {
        const block = `${text.slice(0, nl + 1)}${fence.marker}\n`;
        this.setBuffer(`${reopen}${text.slice(nl + 1)}`);
        return block;
      }
    }
    return this.cut(max);
  }

  private cut(at: number): string {
    const block = this.buffer.slice(0, at);
    this.setBuffer(this.buffer.slice(at));
    return block;
  }

  private setBuffer(text: string): void {
    this.buffer = text;
    this.paragraphEnd = lastParagraphEnd(text);
    this.endsInNewline = text.endsWith('\n');
  }
}
