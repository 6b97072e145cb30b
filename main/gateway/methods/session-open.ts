/**
 * `sessions.open` of a long chat (issue 18 item 18): with a `limit`, only the end of the transcript is read
 * (transcript-tail.ts) — enough messages for the latest `limit` before the active run, plus one, so a compaction
 * divider right before the first one shown is seen too. The answer names where the part shown starts in the file
 * (`earlier`); the window loads everything before that point right after (`before`), so the two parts meet
 * exactly even if the count of the earlier messages (read without parsing them) is off for a damaged line.
 */
import type { ActiveRunSnapshot, HistoryEntry } from '../../../preload/contract.js';
import type { Message } from '../../engine/messages.js';
import type { CompactionMark } from '../../sessions/transcript.js';
import { loadTranscriptHead, loadTranscriptTail } from '../../sessions/transcript-tail.js';
import { toHistory, type PriceOf } from '../history.js';

const HISTORY_SLICE = 2000;

export interface OpenedPart {
  history: HistoryEntry[];
  /** Messages before the part shown. */
  omitted: number;
  /** Where the part shown starts: the transcript and the byte offset of its first message (when `omitted` > 0). */
  earlier?: { sessionId: string; offset: number };
}

/** Index of the active run's own user message (the run is replayed from its events), or -1 when it is not there. */
export function activeRunIndex(messages: readonly Message[], snapshot: Pick<ActiveRunSnapshot, 'message' | 'acceptedAt'> | null): number {
  if (!snapshot) return messages.length;
  return messages.findLastIndex((m) => m.role === 'user' && m.timestamp >= snapshot.acceptedAt && m.content === snapshot.message);
}

/** The last `limit` items, moved forward to a user message so no turn is cut in half. */
export function latestEntries<T extends { role: string }>(items: T[], limit: number | undefined): { entries: T[]; omitted: number } {
  if (limit === undefined || items.length <= limit) return { entries: items, omitted: 0 };
  let start = items.length - limit;
  while (start < items.length && items[start]!.role !== 'user') start++;
  if (start === items.length) start = items.length - limit; // one huge turn: show its tail anyway
  return { entries: items.slice(start), omitted: start };
}

/**
 * The part shown of messages read from the end of a file (`before` of them not read): the latest `limit` before the
 * active run, and the compaction marks from right before the first of them up to the run. Pure.
 */
export function shownPart(
  t: { messages: readonly Message[]; compactions: readonly CompactionMark[] },
  snapshot: Pick<ActiveRunSnapshot, 'message' | 'acceptedAt'> | null,
  limit: number | undefined,
): { messages: Message[]; marks: CompactionMark[]; first: number } {
  const at = activeRunIndex(t.messages, snapshot);
  const before = at === -1 ? [...t.messages] : t.messages.slice(0, at);
  const shown = latestEntries(before, limit);
  const marks = t.compactions
    .filter((c) => c.atMessage >= shown.omitted && c.atMessage <= before.length)
    .map((c) => ({ ...c, atMessage: c.atMessage - shown.omitted }));
  return { messages: shown.entries, marks, first: shown.omitted };
}

/** The latest `limit` messages before the active run, reading only as much of the end of `file` as they need. */
export async function openLatest(
  file: string,
  sessionId: string,
  snapshot: ActiveRunSnapshot | null,
  limit: number,
  priceOf?: PriceOf,
  opts: { chunkBytes?: number; countChunkBytes?: number } = {},
): Promise<OpenedPart> {
  const tail = await loadTranscriptTail(
    file,
    (messages) => {
      const at = activeRunIndex(messages, snapshot);
      return at !== -1 && at > limit; // the run's message is read, and one more than the part shown before it
    },
    opts,
  );
  const part = shownPart(tail, snapshot, limit);
  const omitted = tail.messagesBefore + part.first;
  return {
    history: toHistory(part.messages, part.marks, priceOf),
    omitted,
    ...(omitted > 0 ? { earlier: { sessionId, offset: tail.messageStarts[part.first]! } } : {}),
  };
}

/** Everything before `offset` (an `earlier` answer of `openLatest`): the messages and the compaction marks among them. */
export async function openEarlier(
  file: string,
  offset: number,
  priceOf?: PriceOf,
  opts: { pieceBytes?: number; slice?: number } = {},
): Promise<HistoryEntry[]> {
  const part = await loadTranscriptHead(file, offset, opts.pieceBytes);
  const slice = opts.slice ?? HISTORY_SLICE;
  // a divider right after the last earlier message belongs to the part shown (it opens it); converted a slice at a
  // time, giving way between slices (20 000 messages take tens of ms)
  const history: HistoryEntry[] = [];
  for (let from = 0; from < part.messages.length; from += slice) {
    const to = Math.min(part.messages.length, from + slice);
    const marks = part.compactions.filter((c) => c.atMessage >= from && c.atMessage < to).map((c) => ({ ...c, atMessage: c.atMessage - from }));
    for (const entry of toHistory(part.messages.slice(from, to), marks, priceOf)) history.push(entry);
    if (to < part.messages.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return history;
}
