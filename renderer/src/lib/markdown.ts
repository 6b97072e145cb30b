/**
 * A small, safe markdown subset for streaming text: fenced code, headings, lists, quotes, paragraphs, and inline
 * code / bold / italic / links. Produces plain data; the Markdown component turns it into React elements
 * (no HTML strings, no dangerouslySetInnerHTML). An unclosed fence (mid-stream) is treated as code to the end.
 */

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong'; text: string }
  | { kind: 'em'; text: string }
  | { kind: 'link'; text: string; href: string };

export type Block =
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'quote'; text: string }
  | { kind: 'paragraph'; text: string };

const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;
const HEADING = /^(#{1,3})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d+[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;

export function parseBlocks(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flushPara = (): void => {
    if (para.length > 0) blocks.push({ kind: 'paragraph', text: para.join('\n') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trimStart().startsWith(fence[1] ?? '```')) body.push(lines[i++] ?? '');
      blocks.push({ kind: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushPara();
      blocks.push({ kind: 'heading', level: Math.min(heading[1]?.length ?? 1, 3) as 1 | 2 | 3, text: heading[2] ?? '' });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = bullet ? null : ORDERED.exec(line);
    if (bullet || ordered) {
      flushPara();
      const isOrdered = ordered !== null;
      const prev = blocks[blocks.length - 1];
      const item = (bullet ?? ordered)?.[1] ?? '';
      if (prev?.kind === 'list' && prev.ordered === isOrdered && lines[i - 1]?.trim() !== '') prev.items.push(item);
      else blocks.push({ kind: 'list', ordered: isOrdered, items: [item] });
      continue;
    }
    const quote = QUOTE.exec(line);
    if (quote) {
      flushPara();
      const prev = blocks[blocks.length - 1];
      if (prev?.kind === 'quote' && lines[i - 1]?.trim() !== '') prev.text += `\n${quote[1] ?? ''}`;
      else blocks.push({ kind: 'quote', text: quote[1] ?? '' });
      continue;
    }
    if (line.trim() === '') flushPara();
    else para.push(line);
  }
  flushPara();
  return blocks;
}

// `_em_` only between non-word characters, so identifiers like ANTHROPIC_API_KEY stay intact.
const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\s][^*\n]*\*|(?<!\w)_[^_\n]+_(?!\w))|(\[[^\]\n]+\]\((https?:\/\/[^)\s]+)\))/g;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: 'text', text: text.slice(last, at) });
    const token = m[0];
    if (m[1]) out.push({ kind: 'code', text: token.slice(1, -1) });
    else if (m[2]) out.push({ kind: 'strong', text: token.slice(2, -2) });
    else if (m[3]) out.push({ kind: 'em', text: token.slice(1, -1) });
    else out.push({ kind: 'link', text: token.slice(1, token.indexOf('](')), href: m[5] ?? '' });
    last = at + token.length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}
