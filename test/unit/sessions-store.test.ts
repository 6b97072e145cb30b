import { appendFile, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, UserMessage } from '../../main/engine/messages.js';
import { InvalidSessionKeyError, SessionNotFoundError, SessionStore } from '../../main/sessions/store.js';

let dir: string;
let clock: number;
let ids: number;
const now = () => clock;
const newId = () => `id-${++ids}`;
const makeStore = () => new SessionStore(dir, { now, newId });

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'agentdesk-store-')), 'sessions');
  clock = 1_000;
  ids = 0;
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

const user = (content: string, timestamp = clock): UserMessage => ({ role: 'user', content, timestamp });
const assistant = (text: string, timestamp = clock): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  provider: 'demo',
  model: 'agent',
  api: 'demo',
  usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, total: 15 },
  stopReason: 'stop',
  timestamp,
});
const texts = (ms: Message[]) => ms.map((m) => (m.role === 'user' ? m.content : m.role === 'assistant' ? m.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : m.content));

describe('SessionStore.resolve', () => {
  it('creates an entry and a transcript named by the id, never the key; resolving again returns the same entry', async () => {
    const store = makeStore();
    const e = await store.resolve('work/bugfix', { model: 'demo/agent' });
    expect(e).toEqual({
      sessionKey: 'work/bugfix',
      sessionId: 'id-1',
      title: '',
      model: 'demo/agent',
      createdAt: 1000,
      updatedAt: 1000,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    expect((await readdir(dir)).sort()).toEqual(['id-1.jsonl', 'sessions.json']);
    expect(JSON.parse(await readFile(join(dir, 'id-1.jsonl'), 'utf8'))).toEqual({
      type: 'session',
      version: 1,
      id: 'id-1',
      createdAt: 1000,
      key: 'work/bugfix',
    });
    clock = 2_000;
    expect(await store.resolve('work/bugfix')).toEqual(e);
    expect(await makeStore().get('work/bugfix')).toEqual(e); // persisted
  });

  it('uses crypto.randomUUID ids by default', async () => {
    const e = await new SessionStore(dir).resolve('main');
    expect(e.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it.each([[''], ['   '], ['a\nb'], ['x'.repeat(201)]])('rejects the session key %j', async (key) => {
    await expect(makeStore().resolve(key)).rejects.toThrow(InvalidSessionKeyError);
  });

  it('refuses session ids that could escape the folder', async () => {
    const store = makeStore();
    await expect(store.loadMessages('../secrets')).rejects.toThrow(/Invalid session id/);
    await expect(store.append('a/b', user('x'))).rejects.toThrow(/Invalid session id/);
  });
});

describe('SessionStore.append (E13)', () => {
  it('100 concurrent appends from two writers produce 100 intact lines, each writer in its own order', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    const big = 'y'.repeat(20_000); // large lines make torn or merged writes visible if serialisation failed
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      writes.push(store.append(sessionId, user(`A${i} ${big}`, i)));
      writes.push(store.append(sessionId, assistant(`B${i} ${big}`, i)));
    }
    await Promise.all(writes);
    const t = await store.loadTranscript(sessionId);
    expect(t.tornTail).toBe(false);
    expect(t.skippedLines).toBe(0);
    expect(t.messages).toHaveLength(100);
    const tags = texts(t.messages).map((s) => s.split(' ')[0]!);
    expect(tags.filter((s) => s.startsWith('A'))).toEqual(Array.from({ length: 50 }, (_, i) => `A${i}`));
    expect(tags.filter((s) => s.startsWith('B'))).toEqual(Array.from({ length: 50 }, (_, i) => `B${i}`));
    const lines = (await readFile(store.transcriptPath(sessionId), 'utf8')).split('\n');
    expect(lines).toHaveLength(102); // header + 100 + the empty string after the final newline
  });

  it('withWriteLock holds other writers off for the whole critical section', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let saved: { append: (...m: Message[]) => Promise<void> } | undefined;
    const section = store.withWriteLock(sessionId, async (w) => {
      saved = w;
      await w.append(user('step 1'));
      await held;
      await w.append(assistant('step 2'));
      return (await w.loadContext()).messages.length;
    });
    const other = store.append(sessionId, user('other writer'));
    // Wait (however slow the machine) until step 1 is on disk; the other writer must still be held off.
    for (let i = 0; i < 200 && texts(await store.loadMessages(sessionId)).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 20));
    expect(texts(await store.loadMessages(sessionId))).toEqual(['step 1']); // reads take no lock
    release();
    expect(await section).toBe(2);
    await other;
    expect(texts(await store.loadMessages(sessionId))).toEqual(['step 1', 'step 2', 'other writer']);
    await expect(saved!.append(user('late'))).rejects.toThrow(/after its write lock was released/);
  });

  it('shortenToolResults records the new text under the write lock; the context uses it, the file keeps the original', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    const result: Message = { role: 'toolResult', toolCallId: 't1', toolName: 'read', content: 'x'.repeat(5000), isError: false, timestamp: 1 };
    await store.append(sessionId, user('read it'), result);
    let seen = 0;
    const n = await store.shortenToolResults(sessionId, (messages) => {
      seen = messages.length;
      return [{ toolCallId: 't1', content: 'xxxx [shortened]' }];
    });
    expect([n, seen]).toEqual([1, 2]);
    expect((await store.loadContext(sessionId)).messages[1]).toMatchObject({ toolCallId: 't1', content: 'xxxx [shortened]' });
    expect((await store.loadMessages(sessionId))[1]).toMatchObject({ content: 'x'.repeat(5000) }); // the history keeps it whole
    const lines = (await readFile(store.transcriptPath(sessionId), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ type: 'tool_results', version: 1, reason: 'truncate', results: [{ toolCallId: 't1' }] });
    expect(await store.shortenToolResults(sessionId, () => [])).toBe(0); // nothing to shorten: nothing written
    expect((await readFile(store.transcriptPath(sessionId), 'utf8')).trim().split('\n')).toHaveLength(lines.length);
  });

  it('an invalid message is refused and nothing of its batch is written', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    const bad = { role: 'user', content: 42, timestamp: 1 } as unknown as Message;
    await expect(store.append(sessionId, user('fine'), bad)).rejects.toThrow(/invalid message/);
    expect(await store.loadMessages(sessionId)).toEqual([]);
  });

  it('writes the header first when the transcript file is missing', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    await rm(store.transcriptPath(sessionId));
    await makeStore().append(sessionId, user('hi'));
    const t = await store.loadTranscript(sessionId);
    expect(t.header).toMatchObject({ id: sessionId, createdAt: 1000, key: 'main' });
    expect(texts(t.messages)).toEqual(['hi']);
  });
});

describe('crash recovery', () => {
  it('a torn tail is dropped on load, truncated before the next append, and the reload is intact', async () => {
    const first = makeStore();
    const { sessionId } = await first.resolve('main');
    await first.append(sessionId, user('one'), assistant('two'));
    const file = first.transcriptPath(sessionId);
    const goodSize = (await stat(file)).size;
    await appendFile(file, '{"type":"message","message":{"role":"user","cont'); // the crash

    const warnings: string[] = [];
    const restarted = new SessionStore(dir, { now, newId, onWarning: (w) => warnings.push(w) });
    const loaded = await restarted.loadTranscript(sessionId);
    expect(loaded.tornTail).toBe(true);
    expect(texts(loaded.messages)).toEqual(['one', 'two']);

    await restarted.append(sessionId, user('three'));
    const after = await restarted.loadTranscript(sessionId);
    expect(after).toMatchObject({ tornTail: false, skippedLines: 0 });
    expect(texts(after.messages)).toEqual(['one', 'two', 'three']);
    expect((await stat(file)).size).toBe(goodSize + Buffer.byteLength(JSON.stringify({ type: 'message', message: user('three') }) + '\n'));
    expect(warnings).toEqual([expect.stringMatching(/Dropped a torn last line \(\d+ bytes\)/)]);
  });

  it('a tail torn after this store already wrote to the session is repaired too (checked before every append)', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    await store.append(sessionId, user('one'));
    await appendFile(store.transcriptPath(sessionId), '{"type":"message","message":{"role":"assis');
    await store.append(sessionId, user('two'));
    const t = await store.loadTranscript(sessionId);
    expect(t).toMatchObject({ tornTail: false, skippedLines: 0 });
    expect(texts(t.messages)).toEqual(['one', 'two']);
  });
});

describe('index metadata', () => {
  it('lists by updatedAt, newest first', async () => {
    const store = makeStore();
    for (const [key, t] of [['a', 1], ['b', 2], ['c', 3]] as const) {
      clock = t * 1000;
      await store.resolve(key);
    }
    clock = 9_000;
    await store.update('a', {});
    expect((await store.list()).map((e) => e.sessionKey)).toEqual(['a', 'c', 'b']);
  });

  it('sums billed usage field by field (cost while every run was priced), keeps the context size apart, stamps updatedAt', async () => {
    const store = makeStore();
    await store.resolve('main');
    clock = 5_000;
    await store.update('main', { addBilling: { input: 100, output: 20, cacheRead: 50, cacheWrite: 10, total: 180, calls: 2, cost: 0.5 }, context: 150 });
    clock = 6_000;
    const e = await store.update('main', { addBilling: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, total: 10, calls: 1, cost: 0.25 }, model: 'openai/gpt-4o', context: 80 });
    expect(e.usage).toEqual({ input: 101, output: 22, cacheRead: 53, cacheWrite: 14, total: 190, calls: 3, cost: 0.75 });
    expect(e.context).toBe(80);
    expect(e.updatedAt).toBe(6_000);
    expect(e.model).toBe('openai/gpt-4o');
    expect(await makeStore().get('main')).toEqual(e);
    const unpriced = await store.update('main', { addBilling: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, total: 2, calls: 1 } });
    expect(unpriced.usage.cost).toBeUndefined(); // one unpriced call: the total's cost is unknown from now on
    expect(unpriced.usage.total).toBe(192);
  });

  it('titles a session from its first user message (one line, at most 60 chars) and keeps it', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    await store.append(sessionId, assistant('a greeting is not a title'));
    expect((await store.get('main'))?.title).toBe('');
    const long = 'Please   refactor\nthe parser so that it handles every edge case we discussed yesterday';
    await store.append(sessionId, user(long));
    const title = (await store.get('main'))!.title;
    expect(title).toBe('Please refactor the parser so that it handles every edge ca…');
    expect(Array.from(title)).toHaveLength(60);
    await store.append(sessionId, user('second message'));
    expect((await store.get('main'))?.title).toBe(title);
    await store.rename('main', '  My\tparser work ');
    expect((await store.get('main'))?.title).toBe('My parser work');
  });

  it('update of an unknown key throws SessionNotFoundError', async () => {
    await expect(makeStore().update('nope', { title: 'x' })).rejects.toThrow(SessionNotFoundError);
  });

  it('delete removes the entry and its transcript', async () => {
    const store = makeStore();
    const { sessionId } = await store.resolve('main');
    await store.append(sessionId, user('x'));
    expect(await store.delete('main')).toBe(true);
    expect(await store.get('main')).toBeUndefined();
    expect(await readdir(dir)).toEqual(['sessions.json']);
    expect(await store.delete('main')).toBe(false);
  });

  it('reset gives the key a fresh session and keeps the old transcript on disk', async () => {
    const store = makeStore();
    const old = await store.resolve('main', { model: 'demo/agent' });
    await store.append(old.sessionId, user('old chat'));
    clock = 7_000;
    const fresh = await store.reset('main');
    expect(fresh).toMatchObject({ sessionId: 'id-2', title: '', model: 'demo/agent', createdAt: 7_000 });
    expect(await store.loadMessages(fresh.sessionId)).toEqual([]);
    expect(texts(await store.loadMessages(old.sessionId))).toEqual(['old chat']);
  });
});
