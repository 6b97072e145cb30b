/**
 * `sessions.open` of a long chat (issue 18 item 18): with a `limit`, only the end of the transcript is read
 * (transcript-tail.ts) — enough messages for the latest `limit` before the active run, plus one, so a compaction
 * divider right before the first one shown is seen too. The answer names where the part shown starts in the file
 * (`earlier`); the window then loads the part before that point the same way, a piece at a time (`before`: the
 * file read as if it ended there), so the parts meet exactly — even if the count of the earlier messages (read
 * without parsing them) is off for a damaged line — and no piece is a long task for the gateway or the window.
 */
import type { ActiveRunSnapshot, HistoryEntry } from '../../../preload/contract.js';
import type { Message } from '../../engine/messages.js';
import type { CompactionMark } from '../../sessions/transcript.js';
import { loadTranscriptTail } from '../../sessions/transcript-tail.js';
import { toHistory, type PriceOf } from '../history.js';

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
  /** The messages end where a later part begins: a divider at the very end opens that part, not this one. */
  laterPart = false,
): { messages: Message[]; marks: CompactionMark[]; first: number } {
  const at = activeRunIndex(t.messages, snapshot);
  const before = at === -1 ? [...t.messages] : t.messages.slice(0, at);
  const shown = latestEntries(before, limit);
  const marks = t.compactions
    .filter((c) => c.atMessage >= shown.omitted && (laterPart ? c.atMessage < before.length : c.atMessage <= before.length))
    .map((c) => ({ ...c, atMessage: c.atMessage - shown.omitted }));
  return { messages: shown.entries, marks, first: shown.omitted };
}

/**
 * The latest `limit` messages before the active run, reading only as much of the end of `file` as they need; with
 * `end`, the latest `limit` before that point (the part of the chat before what is shown; no run there).
 */
export async function openLatest(
  file: string,
  sessionId: string,
  snapshot: ActiveRunSnapshot | null,
  limit: number,
  priceOf?: PriceOf,
  opts: { chunkBytes?: number; countChunkBytes?: number; end?: number } = {},
): Promise<OpenedPart> {
  const tail = await loadTranscriptTail(
    file,
    (messages) => {
      const at = activeRunIndex(messages, snapshot);
      return at !== -1 && at > limit; // the run's message is read, and one more than the part shown before it
    },
    { ...opts, expect: limit + 2 },
  );
  const part = shownPart(tail, snapshot, limit, opts.end !== undefined);
  const omitted = tail.messagesBefore + part.first;
  return {
    history: toHistory(part.messages, part.marks, priceOf),
    omitted,
    ...(omitted > 0 ? { earlier: { sessionId, offset: tail.messageStarts[part.first]! } } : {}),
  };
}
