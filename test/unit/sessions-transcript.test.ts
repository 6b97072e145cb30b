import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../main/engine/messages.js';
import {
  appendLines,
  loadTranscript,
  messageLine,
  parseTranscript,
  repairTranscript,
  TranscriptVersionError,
} from '../../main/sessions/transcript.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'v1');
let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'agentdesk-transcript-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A private copy of a fixture, so tests that append never touch the originals. */
async function fixture(name: string): Promise<string> {
  const file = join(tmp, name);
  await copyFile(join(FIXTURES, name), file);
  return file;
}

const roles = (ms: Message[]) => ms.map((m) => m.role);

describe('transcript v1 fixtures', () => {
  it.each([
    // name, roles, tornTail, skippedLines, otherLines, has header
    ['good.jsonl', ['user', 'assistant', 'toolResult', 'assistant'], false, 0, 0, true],
    ['torn-tail.jsonl', ['user', 'assistant', 'toolResult'], true, 0, 0, true],
    ['torn-tail-with-newline.jsonl', ['user', 'assistant', 'toolResult'], true, 0, 0, true],
    ['garbage-middle.jsonl', ['user', 'assistant', 'toolResult', 'assistant'], false, 3, 0, true],
    ['empty.jsonl', [], false, 0, 0, false],
    ['header-only.jsonl', [], false, 0, 0, true],
    ['unknown-type.jsonl', ['user', 'assistant'], false, 0, 1, true],
    ['no-header.jsonl', ['user', 'assistant', 'toolResult', 'assistant'], false, 0, 0, false],
    ['complete-no-newline.jsonl', ['user', 'assistant', 'toolResult', 'assistant'], false, 0, 0, true],
    ['blank-lines-crlf.jsonl', ['user', 'assistant'], false, 0, 0, true],
  ] as const)('%s', async (name, expectedRoles, tornTail, skippedLines, otherLines, hasHeader) => {
    const t = await loadTranscript(join(FIXTURES, name));
    expect(roles(t.messages)).toEqual(expectedRoles);
    expect(t.tornTail).toBe(tornTail);
    expect(t.skippedLines).toBe(skippedLines);
    expect(t.otherLines).toBe(otherLines);
    expect(t.header !== undefined).toBe(hasHeader);
  });

  it('keeps every field of a good transcript, including non-ASCII text and tool call arguments', async () => {
    const t = await loadTranscript(join(FIXTURES, 'good.jsonl'));
    expect(t.header).toMatchObject({ type: 'session', version: 1, id: 's-fixture', createdAt: 1700000000000, key: 'main' });
    const a = t.messages[1];
    expect(a).toMatchObject({
      role: 'assistant',
      stopReason: 'toolUse',
      content: [
        { type: 'thinking', signature: 'sig==' },
        { type: 'text', text: 'Reading it.' },
        { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'hello.txt' } },
      ],
    });
    expect(t.messages[3]).toMatchObject({ content: [{ type: 'text', text: 'It says: hello world — ünïcødé ✓' }] });
  });

  it('a torn tail loses nothing before it: the torn file equals the good one minus its last message', async () => {
    const good = await loadTranscript(join(FIXTURES, 'good.jsonl'));
    const torn = await loadTranscript(join(FIXTURES, 'torn-tail.jsonl'));
    expect(torn.messages).toEqual(good.messages.slice(0, 3));
  });

  it('a header with a newer version is a clear error (the file is not ours to append to)', async () => {
    await expect(loadTranscript(join(FIXTURES, 'future-version.jsonl'))).rejects.toThrow(TranscriptVersionError);
    await expect(loadTranscript(join(FIXTURES, 'future-version.jsonl'))).rejects.toThrow(/version 2; this build reads version 1/);
    const file = await fixture('future-version.jsonl');
    const before = await readFile(file);
    await expect(repairTranscript(file)).rejects.toThrow(TranscriptVersionError);
    expect(await readFile(file)).toEqual(before);
  });

  it('a missing file is an empty transcript', async () => {
    expect(await loadTranscript(join(tmp, 'nope.jsonl'))).toEqual({
      messages: [],
      tornTail: false,
      skippedLines: 0,
      otherLines: 0,
      compactions: [],
      shortenings: [],
    });
  });
});

describe('repair before append', () => {
  const extra: Message = { role: 'user', content: 'after the crash', timestamp: 1700000009000 };

  it.each([
    ['torn-tail.jsonl', 3],
    ['torn-tail-with-newline.jsonl', 3],
    ['complete-no-newline.jsonl', 4],
    ['good.jsonl', 4],
  ])('%s: repair, append, reload keeps %i old messages and the new one intact', async (name, kept) => {
    const file = await fixture(name);
    const before = await loadTranscript(file);
    await repairTranscript(file);
    await appendLines(file, [messageLine(extra)]);
    const after = await loadTranscript(file);
    expect(after.tornTail).toBe(false);
    expect(after.skippedLines).toBe(0);
    expect(after.messages).toHaveLength(kept + 1);
    expect(after.messages.slice(0, kept)).toEqual(before.messages.slice(0, kept));
    expect(after.messages.at(-1)).toEqual(extra);
    expect((await readFile(file, 'utf8')).endsWith('\n')).toBe(true);
  });

  it('truncates exactly to the end of the last complete line (byte-exact with multi-byte text)', async () => {
    const line = messageLine({ role: 'user', content: 'ünïcødé ✓', timestamp: 1 });
    const file = join(tmp, 't.jsonl');
    await writeFile(file, line + '{"type":"message","message":{"role":"user","content":"ü');
    const r = await repairTranscript(file);
    expect(r.size).toBe(Buffer.byteLength(line));
    expect(await readFile(file, 'utf8')).toBe(line);
  });

  it('without repair, appending after a torn tail would merge into garbage (why repair exists)', () => {
    const torn = messageLine({ role: 'user', content: 'a', timestamp: 1 }) + '{"type":"mess';
    const naive = parseTranscript(torn + messageLine({ role: 'user', content: 'b', timestamp: 2 }));
    expect(naive.messages.map((m) => (m.role === 'user' ? m.content : ''))).toEqual(['a']);
  });

  it('reports size 0 for a missing or fully torn file (the caller must write a header)', async () => {
    expect((await repairTranscript(join(tmp, 'missing.jsonl'))).size).toBe(0);
    const file = join(tmp, 'torn-header.jsonl');
    await writeFile(file, '{"type":"session","vers');
    expect(await repairTranscript(file)).toEqual({ size: 0, truncatedBytes: 23, addedNewline: false });
  });
});

describe('parseTranscript line rules', () => {
  const h = '{"type":"session","version":1,"id":"x","createdAt":1}\n';
  const u = (c: string) => messageLine({ role: 'user', content: c, timestamp: 1 });
  it.each([
    ['second header is skipped', h + u('a') + h + u('b'), 2, 1, 0],
    ['header with bad version type is invalid', '{"type":"session","version":"1","id":"x","createdAt":1}\n' + u('a'), 1, 1, 0],
    ['message with unknown role', h + '{"type":"message","message":{"role":"system","content":"x","timestamp":1}}\n' + u('a'), 1, 1, 0],
    ['assistant with bad stopReason', h + '{"type":"message","message":{"role":"assistant","content":[],"provider":"p","model":"m","api":"a","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"stopReason":"weird","timestamp":1}}\n' + u('a'), 1, 1, 0],
    ['assistant with unknown block type', h + '{"type":"message","message":{"role":"assistant","content":[{"type":"image"}],"provider":"p","model":"m","api":"a","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"stopReason":"stop","timestamp":1}}\n' + u('a'), 1, 1, 0],
    ['line without type', h + '{"message":{}}\n' + u('a'), 1, 1, 0],
    ['future line type is counted as other', h + '{"type":"compaction","summary":"s"}\n' + u('a'), 1, 0, 1],
  ])('%s', (_name, text, messages, skipped, other) => {
    const t = parseTranscript(text);
    expect(t.messages).toHaveLength(messages);
    expect(t.skippedLines).toBe(skipped);
    expect(t.otherLines).toBe(other);
    expect(t.tornTail).toBe(false);
  });

  it('keeps unknown extra fields of a message (a newer writer may add some)', () => {
    const t = parseTranscript('{"type":"message","message":{"role":"user","content":"a","timestamp":1,"meta":{"x":1}}}\n');
    expect(t.messages[0]).toEqual({ role: 'user', content: 'a', timestamp: 1, meta: { x: 1 } });
  });
});
