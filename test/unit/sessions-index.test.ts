import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, Usage } from '../../main/engine/messages.js';
import { IndexStore, IndexVersionError, type SessionEntry } from '../../main/sessions/index-store.js';
import { rebuildEntries, usageOfMessages } from '../../main/sessions/rebuild.js';
import { SessionStore } from '../../main/sessions/store.js';
import { headerLine, messageLine } from '../../main/sessions/transcript.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentdesk-index-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const u = (input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  total: input + output + cacheRead + cacheWrite,
});
const user = (content: string, timestamp: number): Message => ({ role: 'user', content, timestamp });
const asst = (usage: Usage, timestamp: number): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'ok' }],
  provider: 'demo',
  model: 'agent',
  api: 'demo',
  usage,
  stopReason: 'stop',
  timestamp,
});

async function writeTranscript(id: string, key: string | undefined, createdAt: number, messages: Message[]) {
  const h = headerLine({ id, createdAt, ...(key !== undefined ? { key } : {}) });
  await writeFile(join(dir, `${id}.jsonl`), h + messages.map(messageLine).join(''));
}

describe('usageOfMessages (E17 per run, summed over runs)', () => {
  it.each<[string, Message[], Usage]>([
    ['no messages', [], u(0, 0)],
    ['one run, one call', [user('a', 1), asst(u(100, 20), 2)], u(100, 20)],
    [
      'one run, two calls: input from the last call, output accumulated',
      [user('a', 1), asst(u(100, 20, 5, 1), 2), asst(u(150, 30, 7, 0), 3)],
      { input: 150, output: 50, cacheRead: 7, cacheWrite: 0, total: 207 },
    ],
    [
      'a failed last call without usage does not erase the prompt',
      [user('a', 1), asst(u(100, 20), 2), asst(u(0, 0), 3)],
      u(100, 20),
    ],
    ['two runs are summed', [user('a', 1), asst(u(100, 20), 2), user('b', 3), asst(u(200, 10), 4)], u(300, 30)],
  ])('%s', (_name, messages, expected) => {
    expect(usageOfMessages(messages)).toEqual(expected);
  });
});

describe('IndexStore', () => {
  const entry = (key: string, id: string): SessionEntry => ({
    sessionKey: key,
    sessionId: id,
    title: '',
    createdAt: 1,
    updatedAt: 1,
    usage: u(0, 0),
  });

  it('persists atomically: the file is complete JSON after every one of many concurrent mutations', async () => {
    const index = new IndexStore(dir, { now: () => 1 });
    const snapshots: unknown[] = [];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        index.mutate(async (entries) => {
          entries.set(`k${i}`, entry(`k${i}`, `id${i}`));
        }).then(async () => snapshots.push(JSON.parse(await readFile(join(dir, 'sessions.json'), 'utf8')))),
      ),
    );
    expect(snapshots).toHaveLength(30);
    const reloaded = await new IndexStore(dir, { now: () => 1 }).all();
    expect(reloaded.map((e) => e.sessionKey).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`).sort());
    expect((await readdir(dir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a mutation that throws changes neither memory nor disk', async () => {
    const index = new IndexStore(dir, { now: () => 1 });
    await index.mutate((entries) => void entries.set('a', entry('a', 'ida')));
    const before = await readFile(join(dir, 'sessions.json'), 'utf8');
    await expect(
      index.mutate((entries) => {
        entries.delete('a');
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    expect((await index.all()).map((e) => e.sessionKey)).toEqual(['a']);
    expect(await readFile(join(dir, 'sessions.json'), 'utf8')).toBe(before);
  });

  it('a write starts from what is on disk: what another store (another process) wrote since is kept, every time', async () => {
    const a = new SessionStore(dir, { now: () => 5, newId: () => 'id-a' });
    const b = new SessionStore(dir, { now: () => 6, newId: () => 'id-b' });
    await a.resolve('one');
    await a.update('one', { title: 'first' }); // the file is a's own: its next write needs no re-read
    await b.resolve('two'); // another writer renames a new index in
    await a.update('one', { title: 'second' }); // a sees the file changed, reads it again, keeps "two"
    await b.update('two', { title: 'third' });
    await a.resolve('three');
    const onDisk = new SessionStore(dir);
    expect((await onDisk.list()).map((e) => [e.sessionKey, e.title]).sort()).toEqual([
      ['one', 'second'],
      ['three', ''],
      ['two', 'third'],
    ]);
  });

  it('a temp file left by a crash before rename is ignored, and cleaned up by the next write; the previous index stands', async () => {
    const store = new SessionStore(dir, { now: () => 5, newId: () => 'id-1' });
    await store.resolve('main');
    await writeFile(join(dir, 'sessions.json.tmp-999-deadbeef'), '{"version":1,"sessions":{"hal'); // crash mid-write
    const reopened = new SessionStore(dir);
    expect((await reopened.get('main'))?.sessionId).toBe('id-1'); // a read takes no lock and leaves it
    await reopened.update('main', { title: 'x' }); // the first write (under the lock) sweeps it
    expect(await readdir(dir)).not.toContain('sessions.json.tmp-999-deadbeef');
    expect(reopened.index.recovery).toBeUndefined();
  });

  it.each([
    ['truncated JSON', '{"version":1,"sessions":{"main":{"sessionKey":"ma', /invalid JSON/],
    ['wrong shape', '{"sessions":[]}', /not a session index/],
    ['bad entry', '{"version":1,"sessions":{"main":{"sessionKey":"main"}}}', /bad entry for session "main"/],
  ])('a corrupt index (%s) is moved aside and rebuilt from the transcripts', async (_name, corrupt, reason) => {
    await writeTranscript('id-a', 'main', 100, [user('Fix the login bug please', 110), asst(u(100, 20), 120)]);
    await writeTranscript('id-b', 'work/bugfix', 200, [user('second\nsession', 210)]);
    await writeTranscript('id-c', undefined, 300, []); // an old transcript without a key in its header
    await writeFile(join(dir, 'sessions.json'), corrupt);
    const warnings: string[] = [];
    const store = new SessionStore(dir, { now: () => 777, onWarning: (w) => warnings.push(w) });

    expect((await store.list()).map((e) => [e.sessionKey, e.sessionId, e.title, e.updatedAt])).toEqual([
      ['id-c', 'id-c', '', 300],
      ['work/bugfix', 'id-b', 'second session', 210],
      ['main', 'id-a', 'Fix the login bug please', 120],
    ]);
    expect((await store.get('main'))?.usage).toEqual(u(100, 20));
    expect(store.index.recovery).toMatchObject({ movedTo: join(dir, 'sessions.json.corrupt-777'), rebuilt: 3 });
    expect(store.index.recovery?.reason).toMatch(reason);
    expect(await readFile(join(dir, 'sessions.json.corrupt-777'), 'utf8')).toBe(corrupt); // kept for the user
    expect(warnings).toHaveLength(1);
    // the rebuilt index is on disk: a restart needs no second recovery
    const again = new SessionStore(dir);
    expect(await again.list()).toHaveLength(3);
    expect(again.index.recovery).toBeUndefined();
  });

  it('a missing index is rebuilt when transcripts exist (nothing to move aside)', async () => {
    await writeTranscript('id-a', 'main', 100, [user('hello', 110)]);
    const store = new SessionStore(dir);
    expect((await store.get('main'))?.sessionId).toBe('id-a');
    expect(store.index.recovery).toEqual({ reason: 'index missing', rebuilt: 1 });
  });

  it('an index written by a newer version is refused and left untouched', async () => {
    const text = '{"version":2,"sessions":{}}';
    await writeFile(join(dir, 'sessions.json'), text);
    await expect(new SessionStore(dir).list()).rejects.toThrow(IndexVersionError);
    expect(await readFile(join(dir, 'sessions.json'), 'utf8')).toBe(text);
  });
});

describe('rebuildEntries', () => {
  it('when several transcripts claim one key, the newest keeps it and the others are listed by id', async () => {
    await writeTranscript('old', 'main', 100, [user('before reset', 150)]);
    await writeTranscript('new', 'main', 200, [user('after reset', 250)]);
    await writeFile(join(dir, 'not-a-transcript.txt'), 'x');
    await writeFile(join(dir, '..bad.jsonl'), 'x');
    const entries = await rebuildEntries(dir);
    expect(entries.map((e) => [e.sessionKey, e.sessionId, e.title])).toEqual([
      ['main', 'new', 'after reset'],
      ['old', 'old', 'before reset'],
    ]);
    expect(entries.every((e) => e.model === undefined)).toBe(true);
  });

  it('a missing folder rebuilds to nothing', async () => {
    expect(await rebuildEntries(join(dir, 'nope'))).toEqual([]);
  });
});
