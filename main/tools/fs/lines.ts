/**
 * Streams a file descriptor line by line with bounded memory: each line is handed over cut to `keepChars`
 * (with its full length), so a 200 MB single-line file costs one chunk plus `keepChars`, not 200 MB.
 */
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

const CHUNK_BYTES = 64 * 1024;

/** Return false to stop early. `text` is at most keepChars long; `length` is the line's full length. */
export type LineSink = (text: string, length: number, lineNo: number) => boolean | void;

export interface ScanResult {
  /** Lines seen (all of them unless the sink stopped early). */
  lines: number;
  stoppedEarly: boolean;
}

export async function scanLines(
  handle: FileHandle,
  keepChars: number,
  sink: LineSink,
  signal?: AbortSignal,
): Promise<ScanResult> {
  const decoder = new StringDecoder('utf8');
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let partial = '';
  let partialLen = 0;
  let lineNo = 0;
  let position = 0;
  let chunks = 0;

  const endLine = (seg: string, segLen: number): boolean => {
    let length = partialLen + segLen;
    let text = partial.length <= keepChars ? partial + seg.slice(0, keepChars + 1 - partial.length) : partial;
    // CRLF: drop the CR when it is the line's last character and we hold the whole line.
    if (text.length === length && text.endsWith('\r')) {
      text = text.slice(0, -1);
      length -= 1;
    }
    partial = '';
    partialLen = 0;
    lineNo += 1;
    return sink(text.slice(0, keepChars), length, lineNo) !== false;
  };

  while (true) {
    if (++chunks % 64 === 0) signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const str = decoder.write(buf.subarray(0, bytesRead));
    let start = 0;
    let nl: number;
    while ((nl = str.indexOf('\n', start)) !== -1) {
      if (!endLine(str.slice(start, Math.min(nl, start + keepChars + 1)), nl - start)) {
        return { lines: lineNo, stoppedEarly: true };
      }
      start = nl + 1;
    }
    const rest = str.slice(start);
    if (partial.length <= keepChars) partial += rest.slice(0, keepChars + 1 - partial.length);
    partialLen += rest.length;
  }
  const tail = decoder.end();
  if (tail !== '') {
    if (partial.length <= keepChars) partial += tail.slice(0, keepChars + 1 - partial.length);
    partialLen += tail.length;
  }
  if (partialLen > 0) endLine('', 0);
  return { lines: lineNo, stoppedEarly: false };
}
