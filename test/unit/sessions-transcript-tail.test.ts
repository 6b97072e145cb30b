/**
 * Opening a long chat reads only the end of its transcript (transcript-tail.ts, session-open.ts): the part shown,
 * its compaction dividers, how many messages come before it, and the earlier part loaded from the point it names
 * must be exactly what a full read gives — over varied transcripts (tool turns, compaction and tool_results records,
 * unknown lines, blank lines, multi-byte text across chunk edges, branch headers, a torn or newline-less last line,
 * damaged lines in the middle), every limit, with and without an active run, and tiny chunks so every edge is hit.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../main/engine/messages.js';
import { toHistory } from '../../main/gateway/history.js';
import { openLatest, shownPart } from '../../main/gateway/methods/session-open.js';
import { compactionLine, headerLine, loadTranscript, messageLine, toolResultsLine, TranscriptVersionError } from '../../main/sessions/transcript.js';
import { loadTranscriptTail, nextChunk } from '../../main/sessions/transcript-tail.js';
import { mulberry32 } from '../support/prng.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'agentdesk-tail-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A seeded generator (mulberry32), so a failing case can be replayed. */
const rng = mulberry32;

const usage = { input: 3, output: 5, cacheRead: 0, cacheWrite: 0, total: 8 };
const WORDS = ['part', 'naïve', '日本語', 'emoji 🎉', 'tab\there', 'quote "x"', 'line\nbreak', 'ok'];

interface Shape {
  header: 'plain' | 'branch' | 'none';
  turns: number;
  compactions: boolean;
  shortenings: boolean;
  unknown: boolean;
  blank: boolean;
  damaged: boolean;
  ending: 'whole' | 'torn' | 'no-newline' | 'torn-with-newline';
}

/** A transcript's text and the user messages in it. */
function transcript(seed: number, shape: Shape): { text: string; users: { content: string; timestamp: number }[] } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  let text = '';
  if (shape.header === 'plain') text += headerLine({ id: `s${seed}`, createdAt: 1, key: 'k' });
  if (shape.header === 'branch') text += headerLine({ id: `s${seed}`, createdAt: 1, key: 'k' }).replace(/}\n$/, ',"branchOf":{"sessionId":"old","atMessage":4}}\n');
  const users: { content: string; timestamp: number }[] = [];
  let ts = 100;
  let count = 0;
  const extras = () => {
    if (shape.compactions && r() < 0.15) {
      text += compactionLine({ summary: `summary ${words(3)}`, keptMessages: Math.floor(r() * 4), tokensBefore: 900, tokensAfter: 90, reason: 'manual', timestamp: ts });
    }
    if (shape.shortenings && r() < 0.1) text += toolResultsLine({ results: [{ toolCallId: `c${count}`, content: 'short' }], reason: 'truncate', timestamp: ts });
    if (shape.unknown && r() < 0.1) text += `${JSON.stringify({ type: 'future_thing', at: ts })}\n`;
    if (shape.blank && r() < 0.1) text += r() < 0.5 ? '\n' : '   \n';
    if (shape.damaged && r() < 0.08) text += pick(['{"type":"message","message":{"role":"user"}}\n', '{not json\n', `${headerLine({ id: 'again', createdAt: 2 })}`, '{"type":"message","message":{"role":"nobody","timestamp":1}}\n']);
  };
  for (let t = 0; t < shape.turns; t++) {
    const user = { role: 'user' as const, content: `${t}: ${words(1 + Math.floor(r() * 12))}`, timestamp: ts++ };
    users.push(user);
    text += messageLine(user);
    count++;
    extras();
    if (r() < 0.3) {
      const id = `c${count}`;
      text += messageLine({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'read', arguments: { path: words(2) } }], provider: 'p', model: 'm', api: 'anthropic', usage, stopReason: 'toolUse', timestamp: ts++ });
      text += messageLine({ role: 'toolResult', toolCallId: id, toolName: 'read', content: words(1 + Math.floor(r() * 20)), isError: false, timestamp: ts++, durationMs: 12 });
      count += 2;
      extras();
    }
    const failed = r() < 0.1;
    text += messageLine({
      role: 'assistant',
      content: [{ type: 'text', text: words(1 + Math.floor(r() * 16)) }],
      provider: 'p',
      model: 'm',
      api: 'anthropic',
      usage,
      stopReason: failed ? 'error' : 'stop',
      ...(failed ? { errorMessage: '429 rate limited' } : {}),
      timestamp: ts++,
    });
    count++;
    extras();
  }
  if (shape.ending === 'torn') text += '{"type":"message","message":{"role":"assi';
  if (shape.ending === 'torn-with-newline') text += '{"type":"message","mess\n';
  if (shape.ending === 'no-newline') text = text.replace(/\n$/, '');
  return { text, users };
}

/** What a full read shows (the reference): the part shown, how many before it, and the whole history up to the run. */
async function fullRead(file: string, snapshot: { message: string; acceptedAt: number } | null, limit: number) {
  const t = await loadTranscript(file);
  const part = shownPart(t, snapshot, limit);
  const all = shownPart(t, snapshot, undefined);
  return { history: toHistory(part.messages, part.marks), omitted: part.first, all: toHistory(all.messages, all.marks) };
}

const messagesIn = (h: { role: string }[]) => h.filter((e) => e.role !== 'compaction').length;

const SHAPES: [string, Shape][] = [
  ['plain turns', { header: 'plain', turns: 30, compactions: false, shortenings: false, unknown: false, blank: false, damaged: false, ending: 'whole' }],
  ['compaction and tool_results records', { header: 'plain', turns: 40, compactions: true, shortenings: true, unknown: false, blank: false, damaged: false, ending: 'whole' }],
  ['a branch (edited chat)', { header: 'branch', turns: 25, compactions: true, shortenings: false, unknown: false, blank: false, damaged: false, ending: 'whole' }],
  ['unknown and blank lines', { header: 'plain', turns: 30, compactions: true, shortenings: false, unknown: true, blank: true, damaged: false, ending: 'whole' }],
  ['a torn last line', { header: 'plain', turns: 30, compactions: true, shortenings: true, unknown: true, blank: false, damaged: false, ending: 'torn' }],
  ['a torn last line with its newline', { header: 'plain', turns: 20, compactions: false, shortenings: false, unknown: false, blank: true, damaged: false, ending: 'torn-with-newline' }],
  ['a whole last line without newline', { header: 'plain', turns: 20, compactions: true, shortenings: false, unknown: false, blank: false, damaged: false, ending: 'no-newline' }],
  ['no header', { header: 'none', turns: 12, compactions: true, shortenings: false, unknown: false, blank: true, damaged: false, ending: 'whole' }],
  ['one turn', { header: 'plain', turns: 1, compactions: false, shortenings: false, unknown: false, blank: false, damaged: false, ending: 'whole' }],
  ['empty', { header: 'plain', turns: 0, compactions: false, shortenings: false, unknown: false, blank: false, damaged: false, ending: 'whole' }],
  ['damaged lines in the middle', { header: 'plain', turns: 40, compactions: true, shortenings: true, unknown: true, blank: true, damaged: true, ending: 'torn' }],
];
const SEEDS = [1, 2, 42];
const LIMITS = [1, 2, 3, 5, 40];
const CHUNKS = [16, 4096];
/**
 * With the 16-byte tail reads, the earlier message lines (counted without parsing them) are counted in tiny chunks,
 * one size per limit: smaller than a message line's 17-byte start (7, 11), exactly it (17), one more (18), a prime
 * (53) — a line's start split over two or three chunks, a line starting right at a chunk edge and the part read
 * ending inside a line's start are all met. The smallest go with the largest limits (the shortest part counted): 7
 * bytes everywhere took ~1 million reads and most of a minute. The 4096-byte tail reads count in the product's
 * own chunk size.
 */
const COUNT_CHUNKS = [53, 18, 17, 11, 7];

// Concurrent (vitest's maxConcurrency, 5): each case has its own file, and most of a case's time is small reads
// waiting on the file system, which the cases then overlap.

describe.concurrent('reading a transcript from its end gives what a full read gives', () => {
  describe.each(SHAPES)('%s', (_name, shape) => {
    it.each(SEEDS)('seed %i: every limit, chunk size and active run', async (seed) => {
      const { text, users } = transcript(seed, shape);
      const file = join(tmp, `${shape.header}-${seed}-${_name.replace(/\W+/g, '-')}.jsonl`);
      await writeFile(file, text);
      const last = users.at(-1);
      const snapshots = [null, ...(last ? [{ message: last.content, acceptedAt: last.timestamp }] : []), { message: 'not in the file', acceptedAt: 0 }];
      for (const snapshot of snapshots) {
        for (const [li, limit] of LIMITS.entries()) {
          const want = await fullRead(file, snapshot, limit);
          for (const chunkBytes of CHUNKS) {
            const run = snapshot && { runId: 'r', events: [], ...snapshot };
            const got = await openLatest(file, 'sid', run, limit, undefined, { chunkBytes, ...(chunkBytes === 16 ? { countChunkBytes: COUNT_CHUNKS[li]! } : {}) });
            const where = `limit ${limit}, chunk ${chunkBytes}, run ${snapshot ? snapshot.message.slice(0, 12) : 'none'}`;
            expect(got.history, where).toEqual(want.history);
            // a damaged line that starts like a message is counted without being read (session-open.ts says so)
            if (!shape.damaged) expect(got.omitted, where).toBe(want.omitted);
            expect(got.earlier !== undefined, where).toBe(got.omitted > 0);
            // the earlier part, piece by piece from the point each answer names, meets the part shown exactly
            let shown = got.history;
            for (let point = got.earlier, piece = limit === 1 ? 3 : limit; point; ) {
              const part = await openLatest(file, 'sid', null, piece, undefined, { chunkBytes, end: point.offset });
              shown = [...part.history, ...shown];
              if (!shape.damaged) expect(part.omitted, where).toBe(messagesIn(want.all) - messagesIn(shown));
              point = part.earlier;
            }
            expect(shown, where).toEqual(want.all);
          }
        }
      }
    }, 60_000); // thousands of reads; five cases at a time take 3–10 s each, over 20 s beside the whole suite on 2 cores
  });

  it('reads only the end of a long transcript', async () => {
    const { text } = transcript(5, { ...SHAPES[0]![1], turns: 4000 });
    const file = join(tmp, 'long.jsonl');
    await writeFile(file, text);
    const tail = await loadTranscriptTail(file, (ms) => ms.length > 41);
    expect(tail.fromStart).toBe(false);
    expect(tail.messages.length).toBeLessThan(400); // 64 KiB from the end, not the ~1.5 MB file
    const full = await loadTranscript(file);
    expect(tail.messagesBefore + tail.messages.length).toBe(full.messages.length);
    expect(tail.messages).toEqual(full.messages.slice(-tail.messages.length));
  });

  it('a header of a newer format version throws, as a full read does', async () => {
    const file = join(tmp, 'future.jsonl');
    const { text } = transcript(9, SHAPES[0]![1]);
    await writeFile(file, `\n${text.replace('"version":1', '"version":99')}`);
    await expect(loadTranscript(file)).rejects.toBeInstanceOf(TranscriptVersionError);
    await expect(loadTranscriptTail(file, () => true)).rejects.toBeInstanceOf(TranscriptVersionError);
  });

  it('a missing file is empty; a point that is not a line start is refused', async () => {
    expect(await loadTranscriptTail(join(tmp, 'nope.jsonl'), () => true)).toMatchObject({ messages: [], messagesBefore: 0, fromStart: true });
    await expect(loadTranscriptTail(join(tmp, 'nope.jsonl'), () => true, { end: 10 })).rejects.toThrow(/gone/);
    const file = join(tmp, 'short.jsonl');
    await writeFile(file, transcript(3, SHAPES[0]![1]).text);
    await expect(loadTranscriptTail(file, () => true, { end: 5 })).rejects.toThrow(/not the start of a line/);
    await expect(loadTranscriptTail(file, () => true, { end: 10_000_000 })).rejects.toThrow(/shorter/);
  });

  it.each([
    // parsed bytes, messages read, expected, bytes read → next read
    [64_000, 0, 4002, 64_000, 64_000], // no message yet: doubling
    [64_000, 100, undefined, 64_000, 64_000], // nothing expected: doubling
    [64_000, 4002, 4002, 64_000, 64_000], // enough read (the caller's rule decides): doubling
    [64_000, 250, 4002, 64_000, Math.ceil((3752 * 64_000 * 1.2) / 250)], // the missing messages at the size read so far
    [64_000, 4000, 4002, 64_000, 32_000], // two short: never under half of what was read
    [10, 1, 3, 10, 24],
    [0, 0, undefined, 0, 1], // always some progress
  ] as const)('next read after %i bytes with %i messages, %s expected, %i read → %i', (parsed, messages, expected, read, next) => {
    expect(nextChunk(parsed, messages, expected, read)).toBe(next);
  });
});
