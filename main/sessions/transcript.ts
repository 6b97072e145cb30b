/**
 * E22 transcripts: one append-only JSONL file per session.
 *
 *   line 1:  {"type":"session","version":1,"id":"<sessionId>","createdAt":<ms>,"key":"<sessionKey>"}
 *   then:    {"type":"message","message":<Message>}
 *   then:    {"type":"compaction","version":1,"summary":…,"keptMessages":N,…} (E10, message-schema.ts) — the
 *            summary that replaces the messages before the last N in the context; the messages stay in the file
 *   then:    {"type":"tool_results","version":1,"results":[{"toolCallId","content"}],…} — tool results shortened
 *            after the fact; the context uses the new text, the file keeps the original lines
 *   future:  other `type`s — an older reader counts and ignores them, never drops them (a reader from before
 *            compaction records does exactly that with them, and still reads every message).
 *
 * Loading never throws for content problems, with one exception: a header announcing a NEWER format version
 * (TranscriptVersionError), because appending v1 lines to a file this build does not understand could corrupt it.
 * - A torn last line (crash mid-write: no trailing newline and not a valid record, or an invalid last line) is
 *   dropped and reported as `tornTail`; nothing before it is lost.
 * - A last line that is a complete, valid record but lost only its newline is kept (it is whole: a prefix of a JSON
 *   object is never valid JSON); the newline is restored before the next append.
 * - Invalid lines before the last (bad JSON, unknown shape, a second header) are skipped and counted.
 * - A missing file is an empty transcript. A missing header is tolerated.
 */
import { appendFile, open, readFile, truncate, writeFile } from 'node:fs/promises';
import type { Message } from '../engine/messages.js';
import {
  COMPACTION_RECORD_VERSION,
  compactionRecordSchema,
  TOOL_RESULTS_RECORD_VERSION,
  toolResultsRecordSchema,
  type ToolResultsFields,
  type ToolResultsRecord,
  headerSchema,
  messageSchema,
  TRANSCRIPT_VERSION,
  type CompactionFields,
  type CompactionRecord,
  type TranscriptHeader,
} from './message-schema.js';

export { TRANSCRIPT_VERSION, type CompactionFields, type CompactionRecord, type TranscriptHeader };

/** A compaction record and where it stands: after the first `atMessage` messages of the file. */
export interface CompactionMark {
  record: CompactionRecord;
  atMessage: number;
}

export class TranscriptVersionError extends Error {
  override name = 'TranscriptVersionError';
  constructor(
    readonly file: string,
    readonly version: number,
  ) {
    super(
      `Transcript ${file} has format version ${version}; this build reads version ${TRANSCRIPT_VERSION}. ` +
        'It was written by a newer AgentDesk: update the app to open this session.',
    );
  }
}

export interface LoadedTranscript {
  header?: TranscriptHeader;
  messages: Message[];
  /** The last line was torn (crash mid-write) and was dropped. */
  tornTail: boolean;
  /** Invalid lines before the last one that were skipped. */
  skippedLines: number;
  /** Valid lines of a type this version does not use (kept in the file, ignored here). */
  otherLines: number;
  /** Compaction records this version understands, in file order. */
  compactions: CompactionMark[];
  /** Tool results shortened after the fact, in file order (later records win). */
  shortenings: ToolResultsRecord[];
}

/** Parse result plus what a writer needs to repair the file before appending. */
export interface ParsedTranscript extends LoadedTranscript {
  /** Byte length of the prefix worth keeping (everything before a torn tail). */
  keepBytes: number;
  /** The kept prefix ends with a complete record that lacks its newline. */
  needsNewline: boolean;
  /** The newer version found in the header, if any (the parser itself does not throw). */
  futureVersion?: number;
  /** Byte offset of each message's line, parallel to `messages` (a cursor into the file: transcript-tail.ts). */
  messageStarts: number[];
}

type Line =
  | { kind: 'header'; header: TranscriptHeader }
  | { kind: 'message'; message: Message }
  | { kind: 'compaction'; record: CompactionRecord }
  | { kind: 'shortening'; record: ToolResultsRecord }
  | { kind: 'other' }
  | { kind: 'invalid' };

export function classifyLine(text: string): Line {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'invalid' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || type === '') return { kind: 'invalid' };
  if (type === 'session') {
    return headerSchema.safeParse(value).success
      ? { kind: 'header', header: value as TranscriptHeader }
      : { kind: 'invalid' };
  }
  if (type === 'message') {
    const message = (value as { message?: unknown }).message;
    // Return the parsed JSON, not zod's output, so fields added by a newer version survive a load/save cycle.
    return messageSchema.safeParse(message).success ? { kind: 'message', message: message as Message } : { kind: 'invalid' };
  }
  if (type === 'compaction') {
    // A record of a newer version, or one from before records were versioned, is left alone like an unknown line.
    const ok = compactionRecordSchema.safeParse(value).success && (value as CompactionRecord).version <= COMPACTION_RECORD_VERSION;
    return ok ? { kind: 'compaction', record: value as CompactionRecord } : { kind: 'other' };
  }
  if (type === 'tool_results') {
    const ok = toolResultsRecordSchema.safeParse(value).success && (value as ToolResultsRecord).version <= TOOL_RESULTS_RECORD_VERSION;
    return ok ? { kind: 'shortening', record: value as ToolResultsRecord } : { kind: 'other' };
  }
  return { kind: 'other' };
}

const NL = 0x0a;

/** Pure parser over the raw bytes (byte offsets must be exact for truncation). */
export function parseTranscript(data: Buffer | string): ParsedTranscript {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const lines: { start: number; end: number; text: string; complete: boolean }[] = [];
  for (let start = 0; start < buf.length; ) {
    const nl = buf.indexOf(NL, start);
    const end = nl === -1 ? buf.length : nl;
    const text = buf.subarray(start, end).toString('utf8');
    if (text.trim() !== '') lines.push({ start, end, text, complete: nl !== -1 });
    start = nl === -1 ? buf.length : nl + 1;
  }

  const result: ParsedTranscript = {
    messages: [],
    tornTail: false,
    skippedLines: 0,
    otherLines: 0,
    compactions: [],
    shortenings: [],
    keepBytes: buf.length,
    needsNewline: false,
    messageStarts: [],
  };
  // A whitespace-only fragment after the last newline is dropped on repair too.
  const lastNl = buf.lastIndexOf(NL);
  const fragmentStart = lastNl + 1;
  if (fragmentStart < buf.length && buf.subarray(fragmentStart).toString('utf8').trim() === '') {
    result.keepBytes = fragmentStart;
  }

  lines.forEach((line, i) => {
    const parsed = classifyLine(line.text);
    const isLast = i === lines.length - 1;
    if (isLast && parsed.kind === 'invalid') {
      result.tornTail = true;
      result.keepBytes = line.start;
      return;
    }
    if (isLast && !line.complete) {
      result.needsNewline = true;
      result.keepBytes = line.end;
    }
    switch (parsed.kind) {
      case 'header':
        if (i === 0) {
          result.header = parsed.header;
          if (parsed.header.version > TRANSCRIPT_VERSION) result.futureVersion = parsed.header.version;
        } else {
          result.skippedLines++;
        }
        break;
      case 'message':
        result.messages.push(parsed.message);
        result.messageStarts.push(line.start);
        break;
      case 'compaction':
        result.compactions.push({ record: parsed.record, atMessage: result.messages.length });
        break;
      case 'shortening':
        result.shortenings.push(parsed.record);
        break;
      case 'other':
        result.otherLines++;
        break;
      case 'invalid':
        result.skippedLines++;
        break;
    }
  });
  return result;
}

async function readOrEmpty(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  }
}

/** Loads a transcript. Throws TranscriptVersionError for a newer format; I/O errors other than ENOENT propagate. */
export async function loadTranscript(file: string): Promise<LoadedTranscript> {
  const parsed = parseTranscript(await readOrEmpty(file));
  if (parsed.futureVersion !== undefined) throw new TranscriptVersionError(file, parsed.futureVersion);
  const { header, messages, tornTail, skippedLines, otherLines, compactions, shortenings } = parsed;
  return { ...(header ? { header } : {}), messages, tornTail, skippedLines, otherLines, compactions, shortenings };
}

export const headerLine = (h: { id: string; createdAt: number; key?: string }): string =>
  JSON.stringify({ type: 'session', version: TRANSCRIPT_VERSION, id: h.id, createdAt: h.createdAt, ...(h.key !== undefined ? { key: h.key } : {}) }) +
  '\n';

export const messageLine = (message: Message): string => JSON.stringify({ type: 'message', message }) + '\n';

export const compactionLine = (record: CompactionFields): string =>
  JSON.stringify({ type: 'compaction', version: COMPACTION_RECORD_VERSION, ...record }) + '\n';

export const toolResultsLine = (record: ToolResultsFields): string =>
  JSON.stringify({ type: 'tool_results', version: TOOL_RESULTS_RECORD_VERSION, ...record }) + '\n';

/** What the model sees of a session: the latest summary (if any) and the messages after it. */
export interface SessionContext {
  summary?: string;
  /** Messages from the kept tail of the latest compaction on (all messages when there is none). */
  messages: Message[];
  /** Index in `messages` of the first message written after the latest compaction (0 without one). */
  sinceCompaction: number;
  compactions: number;
}

/** The messages with every shortened tool result's new text (the latest record for each wins). Pure. */
export function withShortenings(messages: readonly Message[], shortenings: readonly ToolResultsRecord[] | undefined): Message[] {
  if (!shortenings?.length) return [...messages];
  const text = new Map<string, string>();
  for (const r of shortenings) for (const x of r.results) text.set(x.toolCallId, x.content);
  return messages.map((m) => (m.role === 'toolResult' && text.has(m.toolCallId) ? { ...m, content: text.get(m.toolCallId)! } : m));
}

/**
 * What the model sees: the latest compaction record's summary, then its kept tail and everything appended after
 * it, with shortened tool results in their new text.
 */
export function contextOf(t: Pick<LoadedTranscript, 'messages' | 'compactions'> & { shortenings?: readonly ToolResultsRecord[] }): SessionContext {
  const last = t.compactions.at(-1);
  const all = withShortenings(t.messages, t.shortenings);
  if (!last) return { messages: all, sinceCompaction: 0, compactions: 0 };
  const kept = Math.min(last.record.keptMessages, last.atMessage);
  return {
    summary: last.record.summary,
    messages: all.slice(last.atMessage - kept),
    sinceCompaction: kept,
    compactions: t.compactions.length,
  };
}

/** Creates the file with its header; an existing file is left alone. */
export async function createTranscript(file: string, h: { id: string; createdAt: number; key?: string }): Promise<void> {
  try {
    await writeFile(file, headerLine(h), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * Makes the file safe to append to: truncates a torn tail back to the last complete line, or restores the missing
 * newline of a complete last record. Returns the resulting size (0 = missing or empty: a header is needed).
 */
export async function repairTranscript(file: string): Promise<{ size: number; truncatedBytes: number; addedNewline: boolean }> {
  const buf = await readOrEmpty(file);
  const parsed = parseTranscript(buf);
  if (parsed.futureVersion !== undefined) throw new TranscriptVersionError(file, parsed.futureVersion);
  let size = buf.length;
  const truncatedBytes = size - parsed.keepBytes;
  if (truncatedBytes > 0) {
    await truncate(file, parsed.keepBytes);
    size = parsed.keepBytes;
  }
  if (parsed.needsNewline) {
    await appendFile(file, '\n');
    size++;
  }
  return { size, truncatedBytes, addedNewline: parsed.needsNewline };
}

/** Size and whether the file ends with a newline (a cheap check before each append; missing file = size 0). */
export async function tailState(file: string): Promise<{ size: number; endsWithNewline: boolean }> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, endsWithNewline: true };
    throw err;
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return { size, endsWithNewline: true };
    const last = Buffer.alloc(1);
    await fh.read(last, 0, 1, size - 1);
    return { size, endsWithNewline: last[0] === NL };
  } finally {
    await fh.close();
  }
}

/** Appends complete lines in ONE write (a crash can tear only the end of the batch). */
export async function appendLines(file: string, lines: string[], opts: { fsync?: boolean } = {}): Promise<void> {
  if (lines.length === 0) return;
  const data = lines.join('');
  if (!opts.fsync) {
    await appendFile(file, data);
    return;
  }
  const fh = await open(file, 'a');
  try {
    await fh.appendFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
