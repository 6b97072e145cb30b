/**
 * E10 compaction records in the append-only transcript: the loader applies the latest one when it builds the
 * context, keeps every message for the history, and treats a record it does not understand like an unknown line.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactionLine, contextOf, loadTranscript, parseTranscript } from '../../main/sessions/transcript.js';
import { SessionStore } from '../../main/sessions/store.js';
import { toHistory } from '../../main/gateway/history.js';
import { historyToTurns } from '../../renderer/src/store/reduce.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'transcripts');
let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'agentdesk-compaction-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const contents = (ms: { role: string; content: unknown }[]) =>
  ms.map((m) => (m.role === 'assistant' ? (m.content as { text?: string; name?: string }[]).map((b) => b.text ?? b.name).join('') : m.content));

describe('v1-compaction fixtures', () => {
  it.each([
    // name, all messages, summary, context messages (first content of each), compactions, other lines, torn
    ['compacted.jsonl', 8, 'The user asked about notes.txt (Buy milk. / Call Bob.).', ['And the second line?', 'Call Bob.', 'Thanks. Anything else?', 'No, that is all.'], 1, 0, false],
    ['compacted-twice.jsonl', 9, 'Second summary: notes.txt read, both lines given.', ['No, that is all.', 'One more question'], 2, 0, false],
    ['record-newer-version.jsonl', 8, undefined, ['Read notes.txt', 'read', 'Buy milk.\nCall Bob.', 'The notes say: Buy milk.', 'And the second line?', 'Call Bob.', 'Thanks. Anything else?', 'No, that is all.'], 0, 1, false],
    ['compacted-then-torn.jsonl', 6, 'The user asked about notes.txt.', ['And the second line?', 'Call Bob.'], 1, 0, true],
  ] as const)('%s', async (name, total, summary, context, compactions, other, torn) => {
    const t = await loadTranscript(join(DIR, 'v1-compaction', name));
    expect(t.header?.version).toBe(1); // an older build opens the file (it refuses only newer header versions)
    expect(t.messages).toHaveLength(total); // nothing is dropped from the file's history
    expect(t.otherLines).toBe(other);
    expect(t.tornTail).toBe(torn);
    const c = contextOf(t);
    expect(c.summary).toBe(summary);
    expect(contents(c.messages)).toEqual(context);
    expect(c.compactions).toBe(compactions);
  });

  it('v1 files without records give the whole history as context', async () => {
    const t = await loadTranscript(join(DIR, 'v1', 'good.jsonl'));
    expect(contextOf(t)).toEqual({ messages: t.messages, sinceCompaction: 0, compactions: 0 });
  });

  it.each([
    ['no version (written before records were versioned)', '{"type":"compaction","summary":"s","keptMessages":0,"tokensBefore":1,"tokensAfter":1,"reason":"manual","timestamp":1}'],
    ['empty summary', '{"type":"compaction","version":1,"summary":"","keptMessages":0,"tokensBefore":1,"tokensAfter":1,"reason":"manual","timestamp":1}'],
    ['negative kept count', '{"type":"compaction","version":1,"summary":"s","keptMessages":-1,"tokensBefore":1,"tokensAfter":1,"reason":"manual","timestamp":1}'],
  ])('a record that does not validate is an unknown line: %s', (_n, line) => {
    const t = parseTranscript(`${line}\n{"type":"message","message":{"role":"user","content":"a","timestamp":1}}\n`);
    expect(t.compactions).toEqual([]);
    expect(t.otherLines).toBe(1);
  });

  it('a kept count larger than the messages before the record keeps them all', () => {
    const u = (c: string) => JSON.stringify({ type: 'message', message: { role: 'user', content: c, timestamp: 1 } }) + '\n';
    const rec = compactionLine({ summary: 's', keptMessages: 5, tokensBefore: 1, tokensAfter: 1, reason: 'manual', timestamp: 1 });
    const c = contextOf(parseTranscript(u('a') + u('b') + rec + u('c')));
    expect(c.messages.map((m) => m.content)).toEqual(['a', 'b', 'c']);
    expect(c.sinceCompaction).toBe(2);
  });
});

describe('SessionStore with compaction records', () => {
  it('appends a record without touching earlier lines; loadContext applies it, history shows a divider', async () => {
    const store = new SessionStore(join(tmp, 'sessions'));
    const s = await store.resolve('main');
    await store.append(s.sessionId, { role: 'user', content: 'one', timestamp: 1 }, { role: 'user', content: 'two', timestamp: 2 });
    const file = store.transcriptPath(s.sessionId);
    const before = await readFile(file, 'utf8');
    await store.appendCompaction(s.sessionId, { summary: 'said one', keptMessages: 1, tokensBefore: 100, tokensAfter: 20, reason: 'manual', timestamp: 3 });
    await store.append(s.sessionId, { role: 'user', content: 'three', timestamp: 4 });
    const after = await readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const ctx = await store.loadContext(s.sessionId);
    expect(ctx.summary).toBe('said one');
    expect(ctx.messages.map((m) => m.content)).toEqual(['two', 'three']);
    const t = await store.loadTranscript(s.sessionId);
    const history = toHistory(t.messages, t.compactions);
    expect(history.map((h) => h.role)).toEqual(['user', 'user', 'compaction', 'user']);
    expect(history[2]).toMatchObject({ role: 'compaction', tokensBefore: 100, tokensAfter: 20, timestamp: 3 });
    // The chat shows the same divider a live compaction shows.
    const turns = historyToTurns([...history, { role: 'assistant', text: 'ok', thinking: '', toolCalls: [], stopReason: 'stop', timestamp: 5 }]);
    const parts = turns.flatMap((t) => (t.kind === 'assistant' ? t.parts : []));
    expect(parts).toContainEqual({ kind: 'compaction', phase: 'end', tokensBefore: 100, tokensAfter: 20 });
  });
});
