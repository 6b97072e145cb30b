/**
 * A transcript's end without reading all of it (issue 18 item 18: a 20 000-message chat opens with its latest
 * messages at once), and the part before a point (the rest of the chat, loaded after it opened).
 *
 * The tail is read backwards in chunks that double in size, and only whole lines of what was read are parsed —
 * with the parser of a full load (parseTranscript), so the same validity rules hold: a torn or invalid last line
 * is dropped, a last record that only lost its newline is kept, invalid lines are skipped, compaction records
 * stand where they are. Reading stops as soon as the caller's `enough` says the messages read suffice; their
 * messages and compaction marks are exactly the file's last ones (transcript-tail.test.ts compares with a full
 * load). Branches are separate files (branch.ts), so a file is always one linear conversation.
 *
 * A header of a newer format version throws TranscriptVersionError, as a full load does.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { Message } from '../engine/messages.js';
import { classifyLine, parseTranscript, TRANSCRIPT_VERSION, TranscriptVersionError, type CompactionMark } from './transcript.js';

const NL = 0x0a;
/** How a message line written by the store starts (messageLine); used to count lines that are not parsed. */
const MESSAGE_LINE = Buffer.from('{"type":"message"');
const FIRST_CHUNK = 64 * 1024;
const COUNT_CHUNK = 4 * 1024 * 1024;

export interface TranscriptTail {
  /** The file's last messages (every message when `fromStart`). */
  messages: Message[];
  /** Compaction records among them; `atMessage` counts within `messages`. */
  compactions: CompactionMark[];
  /** Byte offset in the file of each message's line, parallel to `messages` (a cursor for `loadTranscriptHead`). */
  messageStarts: number[];
  /**
   * Message lines before the part read, counted by how they start, without parsing them: exact for lines the store
   * wrote; a damaged line that starts like a message counts although a full load skips it.
   */
  messagesBefore: number;
  /** The part read is the whole file (`messagesBefore` is 0). */
  fromStart: boolean;
}

async function openOrNull(file: string): Promise<FileHandle | null> {
  try {
    return await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readAt(fh: FileHandle, start: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, start + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** Throws like a full load when the file's first line is a header of a newer format version. */
async function checkHeader(fh: FileHandle, size: number, file: string): Promise<void> {
  let buf = Buffer.alloc(0);
  let lineStart = 0;
  while (buf.length < size) {
    const more = await readAt(fh, buf.length, Math.min(Math.max(FIRST_CHUNK, buf.length), size - buf.length));
    if (more.length === 0) return; // the file shrank under us: nothing more to check
    buf = Buffer.concat([buf, more]);
    // the first line that is not blank is the one a full load takes as the header
    for (;;) {
      const nl = buf.indexOf(NL, lineStart);
      if (nl === -1 && buf.length < size) break; // the line goes on: read more
      const text = buf.subarray(lineStart, nl === -1 ? buf.length : nl).toString('utf8');
      if (text.trim() !== '') {
        const line = classifyLine(text);
        if (line.kind === 'header' && line.header.version > TRANSCRIPT_VERSION) throw new TranscriptVersionError(file, line.header.version);
        return;
      }
      if (nl === -1) return;
      lineStart = nl + 1;
    }
  }
}

/**
 * How much more to read: with `expect` (the messages the caller needs), as much as the messages still missing take
 * at the size of those read so far (and a fifth more) — the piece is then mostly parsed once, not about twice as
 * with doubling; never less than half of what was read, so a run of lines that are not messages is still crossed
 * in few reads. Without `expect`, or before any message was read: doubling.
 */
export function nextChunk(parsedBytes: number, messages: number, expect: number | undefined, readBytes: number): number {
  if (expect === undefined || messages === 0 || messages >= expect) return Math.max(1, readBytes);
  return Math.max(1, Math.ceil(((expect - messages) * parsedBytes * 1.2) / messages), Math.ceil(readBytes / 2));
}

/** Lines in `[0, end)` that start like a message line (see `messagesBefore`). */
async function countMessageLines(fh: FileHandle, end: number, chunkBytes = COUNT_CHUNK): Promise<number> {
  let count = 0;
  const n = MESSAGE_LINE.length;
  for (let at = 0; at < end; at += chunkBytes) {
    const upTo = Math.min(end, at + chunkBytes); // line starts in [at, upTo) are counted in this round
    const from = Math.max(0, at - 1); // the newline before `at`
    const bytes = await readAt(fh, from, Math.min(end, upTo + n) - from);
    const matches = (p: number) => p + n <= end && bytes.subarray(p - from, p - from + n).equals(MESSAGE_LINE);
    if (at === 0 && matches(0)) count++;
    for (let i = bytes.indexOf(NL); i !== -1 && from + i + 1 < upTo; i = bytes.indexOf(NL, i + 1)) {
      const p = from + i + 1;
      if (p >= at && matches(p)) count++;
    }
  }
  return count;
}

/**
 * Reads the end of a transcript until `enough(messages)` holds for the messages read (or the whole file is read).
 * With `end` (a message's start from `messageStarts`), the file is read as if it ended there: the part of a long
 * chat before what is shown, a piece at a time. A missing file is an empty transcript; an `end` that is not the
 * start of a line in it is refused (RangeError).
 */
export async function loadTranscriptTail(
  file: string,
  enough: (messages: readonly Message[]) => boolean,
  /** `expect`: about how many messages `enough` needs (the reads are sized to it; the result is the same). */
  opts: { chunkBytes?: number; countChunkBytes?: number; end?: number; expect?: number } = {},
): Promise<TranscriptTail> {
  const fh = await openOrNull(file);
  if (!fh) {
    if (!opts.end) return { messages: [], compactions: [], messageStarts: [], messagesBefore: 0, fromStart: true };
    throw new RangeError(`${file} is gone: no earlier part to read`);
  }
  try {
    const { size } = await fh.stat();
    await checkHeader(fh, size, file);
    const end = opts.end ?? size;
    if (end > size) throw new RangeError(`${file} is shorter than ${end} bytes`);
    if (opts.end !== undefined && end > 0 && (await readAt(fh, end - 1, 1))[0] !== NL) throw new RangeError(`byte ${end} of ${file} is not the start of a line`);
    let start = end;
    let buf = Buffer.alloc(0);
    let chunk = opts.chunkBytes ?? FIRST_CHUNK;
    for (;;) {
      const next = Math.max(0, start - chunk);
      buf = Buffer.concat([await readAt(fh, next, start - next), buf]);
      start = next;
      chunk = buf.length; // doubling: the whole file is parsed at most about twice
      // Before the first newline of what was read is a line that may have begun earlier: it is left for the next read.
      const cut = start === 0 ? 0 : buf.indexOf(NL) + 1;
      if (start > 0 && cut === 0) continue;
      const part = parseTranscript(buf.subarray(cut));
      chunk = nextChunk(buf.length - cut, part.messages.length, opts.expect, buf.length);
      if (start === 0 || enough(part.messages)) {
        const boundary = start + cut;
        return {
          messages: part.messages,
          compactions: part.compactions,
          messageStarts: part.messageStarts.map((at) => at + boundary),
          messagesBefore: boundary === 0 ? 0 : await countMessageLines(fh, boundary, opts.countChunkBytes),
          fromStart: boundary === 0,
        };
      }
    }
  } finally {
    await fh.close();
  }
}
