/**
 * Offline token estimates for budget decisions (E10 preemptive compaction, context meter).
 *
 * Plain chars/4 is within ~10 % for English and code but undercounts JSON by ~37 %, random ids / base64
 * by ~45 % and CJK by 2–3× (measured against o200k/cl100k tokenizers). This estimator weighs character
 * classes instead, in one linear pass. Weights were fitted against o200k_base (js-tiktoken) on English
 * docs, TypeScript, bundled JS, package-lock JSON, tool-call JSON, base64/hex, Chinese, Japanese and
 * Vietnamese samples; most land within ±15 %:
 *
 * - ASCII letters/digits: 0.2 each (≈ chars/4 once spaces and punctuation are counted)
 * - +1 for each class switch inside a word (lower→Upper, letter↔digit): camelCase pieces, hashes, base64
 * - other ASCII symbols: 0.6; newline: 1; space, tab, CR: 0
 * - CJK ideographs, kana, hangul, fullwidth forms: 1 each (o200k needs ~0.6, cl100k and Claude ~0.9–1+)
 * - Latin-1/Latin Extended, Greek, Cyrillic letters (U+00C0–U+052F): 0.4 (o200k ~0.25, cl100k ~0.4)
 * - other non-ASCII: 0.8 per UTF-16 unit (Vietnamese stacked diacritics, symbols; emoji ≈ 1.6)
 *
 * Claude has no public tokenizer and counts up to ~15 % more than o200k; callers should keep headroom
 * and calibrate with the usage each response reports.
 */
import type { AssistantBlock, Attachment, Message } from '../messages.js';

// Weights in tenths of a token (integer sums: no floating-point drift before the final ceil).
const W_ALNUM = 2;
const W_SWITCH = 10;
const W_SYMBOL = 6;
const W_NEWLINE = 10;
const W_CJK = 10;
const W_LETTER_EXT = 4;
const W_OTHER = 8;

/** Framing per message (role, separators, ids); OpenAI documents ~3–7. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Framing per tool call (id, name field, argument wrapper). */
export const TOOL_CALL_OVERHEAD_TOKENS = 4;

// Character classes inside an ASCII word.
const NONE = 0;
const DIGIT = 1;
const UPPER = 2;
const LOWER = 3;

const isCjk = (c: number): boolean =>
  (c >= 0x2e80 && c <= 0x9fff) || // CJK radicals, punctuation, kana, ideographs
  (c >= 0xac00 && c <= 0xd7af) || // hangul syllables
  (c >= 0xf900 && c <= 0xfaff) || // compatibility ideographs
  (c >= 0xff00 && c <= 0xffef); // half/fullwidth forms

export function estimateTokens(text: string): number {
  let sum = 0;
  let prev = NONE;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let cls = NONE;
    if (c < 128) {
      if (c >= 97 && c <= 122) cls = LOWER;
      else if (c >= 65 && c <= 90) cls = UPPER;
      else if (c >= 48 && c <= 57) cls = DIGIT;
    }
    if (cls !== NONE) {
      sum += W_ALNUM;
      if (prev !== NONE && cls !== prev && !(prev === UPPER && cls === LOWER)) sum += W_SWITCH;
      prev = cls;
      continue;
    }
    prev = NONE;
    if (c === 32 || c === 9 || c === 13) continue;
    if (c === 10) sum += W_NEWLINE;
    else if (c < 128) sum += W_SYMBOL;
    else if (isCjk(c)) sum += W_CJK;
    else if (c >= 0xc0 && c <= 0x52f) sum += W_LETTER_EXT;
    else sum += W_OTHER;
  }
  return Math.ceil(sum / 10);
}

function blockTokens(block: AssistantBlock): number {
  switch (block.type) {
    case 'text':
      return estimateTokens(block.text);
    case 'thinking':
      return estimateTokens(block.thinking) + (block.redacted ? estimateTokens(block.redacted) : 0);
    case 'toolCall':
      return TOOL_CALL_OVERHEAD_TOKENS + estimateTokens(block.name) + estimateTokens(JSON.stringify(block.arguments));
  }
}

/** Longest side a provider works on (Anthropic 1568 px; OpenAI tiles 2048 px at about the same token count). */
const IMAGE_SIDE = 1568;
/** Pixels a provider works on at most (Anthropic: ~1.15 megapixels). */
const IMAGE_MAX_PIXELS = 1_150_000;
/** Tokens of an image of unknown size (the largest an image costs). */
export const IMAGE_TOKENS_DEFAULT = 1534;

/** X3: tokens of one image as sent: about width × height / 750 once it fits IMAGE_SIDE (Anthropic's documented rule). */
export function imageTokens(width?: number, height?: number): number {
  if (!width || !height) return IMAGE_TOKENS_DEFAULT;
  const scale = Math.min(1, IMAGE_SIDE / Math.max(width, height));
  // Anthropic also scales anything past ~1.15 megapixels down (a 1568 px square becomes ~1092 px).
  const pixels = Math.min(width * scale * (height * scale), IMAGE_MAX_PIXELS);
  return Math.max(1, Math.ceil(pixels / 750));
}

/** Characters of an attached text file that a request carries (attachment-send.ts caps it the same way). */
const FILE_CHARS_SENT = 50_000;

function attachmentTokens(list: readonly Attachment[] | undefined): number {
  let sum = 0;
  for (const a of list ?? []) {
    if (a.type === 'image') sum += imageTokens(a.width, a.height);
    else sum += 20 + (a.text !== undefined ? estimateTokens(a.text) : Math.ceil(Math.min(a.bytes, FILE_CHARS_SENT) / 3.5));
  }
  return sum;
}

export function estimateMessageTokens(message: Message): number {
  switch (message.role) {
    case 'user':
      return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content) + attachmentTokens(message.attachments);
    case 'toolResult':
      return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content) + attachmentTokens(message.images);
    case 'assistant': {
      let sum = MESSAGE_OVERHEAD_TOKENS;
      for (const block of message.content) sum += blockTokens(block);
      return sum;
    }
  }
}

/** Estimate of a whole request: system prompt + every message, with per-message framing. */
export function estimateMessagesTokens(messages: readonly Message[], systemPrompt = ''): number {
  let sum = systemPrompt === '' ? 0 : MESSAGE_OVERHEAD_TOKENS + estimateTokens(systemPrompt);
  for (const m of messages) sum += estimateMessageTokens(m);
  return sum;
}
