/**
 * A lock that knows its holder is dead: the built CLI is killed with SIGKILL in the middle of a streamed reply, ten
 * times in a row on one session, and each time the next turn on that session must reach the provider at once —
 * the dead process's session lock (and any index or auth-state lock it held) is taken over because its PID names
 * no live process, not after the 10 s staleness. Timings are taken at the fake server (when each request arrived)
 * against when its CLI was started; the first, unhindered turn on a fresh session is the yardstick printed beside
 * them. At the end every message that reached the transcript is in the final request, in order, and no partial
 * reply of a killed turn is.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, startFakeAnthropic, type FakeProvider, type RecordedRequest } from '../fake/index.js';
import { LOCK_STALE_MS } from '../../main/sessions/file-lock.js';
import { ROOT, cleanEnv, ensureBuilt, tempDir, writeConfig } from '../support/cli.js';

const KILLS = 10;
/** The goal: a turn after a kill starts its request within 1 s of its CLI's start. */
const GOAL_MS = 1000;

let fake: FakeProvider;
let workspace: string;
let home: string;
const env = cleanEnv({ FAKE_ANT_KEY: 'sk-ant-killrestart-0001' });

beforeAll(async () => {
  await ensureBuilt();
  fake = await startFakeAnthropic();
  workspace = await tempDir('kill-ws');
  home = await tempDir('kill-home');
  await writeConfig(home, {
    providers: { fakeant: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } },
    authProfiles: [{ id: 'fakeant:test', provider: 'fakeant', apiKeyEnv: 'FAKE_ANT_KEY' }],
    agent: { model: { primary: 'fakeant/claude-fake' } },
  });
}, 120_000);
afterAll(async () => fake?.close());

const PARTIAL = 'this reply is cut off by a kill ';

function cli(session: string, message: string): ResultPromise {
  return execa(process.execPath, [join(ROOT, 'bin', 'agentdesk.mjs'), 'agent', '--home', home, '--workspace', workspace, '--session', session, '--message', message], {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

/** The request whose last user message is `text`, once it has reached the server. */
async function requestFor(text: string, within = 20_000): Promise<RecordedRequest> {
  const end = Date.now() + within;
  for (;;) {
    const req = fake.requests.find((r) => lastUserText(r) === text);
    if (req) return req;
    if (Date.now() > end) throw new Error(`no request for "${text}" within ${within} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const userTexts = (req: RecordedRequest): string[] =>
  (req.body.messages as { role: string; content: string | { type: string; text?: string }[] }[])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('')));

describe('kill -9 mid-stream, then the next turn on the same session', () => {
  it(`${KILLS} consecutive kills: each next turn reaches the provider within ${GOAL_MS} ms of its start (one load outlier allowed, none held by a dead lock); nothing that reached the transcript is lost`, async () => {
    // Killed turns stream slowly (a long reply, 40 ms between events); the last turn answers at once.
    fake.setDefault((req) => (lastUserText(req).startsWith('turn ') ? { text: PARTIAL.repeat(40), chunkSize: 8, delayMs: 40 } : { text: 'all done' }));

    // Yardstick: a turn on a fresh session, nothing in its way.
    const t0 = Date.now();
    const first = cli('fresh', 'hello');
    const baseline = (await requestFor('hello')).at! - t0;
    expect((await first).exitCode).toBe(0);

    const latencies: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      const started = Date.now();
      const child = cli('k', `turn ${i}`);
      const req = await requestFor(`turn ${i}`);
      if (i > 0) latencies.push(req.at! - started); // a dead holder's locks were in its way
      await new Promise((r) => setTimeout(r, 150)); // mid-stream: some of the reply has been sent
      child.kill('SIGKILL');
      const ended = await child;
      expect(ended.signal).toBe('SIGKILL');
    }
    const started = Date.now();
    const last = await cli('k', 'final');
    const finalReq = await requestFor('final');
    latencies.push(finalReq.at! - started);
    expect(last.exitCode).toBe(0);
    expect(String(last.stdout)).toBe('all done');
    expect(String(last.stderr)).not.toMatch(/waiting for another run/);

    console.log(`[kill-restart] yardstick (fresh session) ${baseline} ms; after each kill: ${latencies.join(', ')} ms`);
    // Within the goal; on a machine so loaded that even the unhindered start takes most of it, within twice that.
    // One turn of the ten may miss it: beside the rest of the suite a single start now and then takes a second
    // longer (CI, 2026-12-03: 1 520 ms once among 395–663 ms). A dead holder's lock in the way is not such a turn:
    // it would hold up every turn after a kill, for its staleness (10 s), and never pass the second bound either.
    const bound = Math.max(GOAL_MS, 2 * baseline);
    const over = latencies.filter((ms) => ms >= bound);
    expect(over.length, `turns over ${bound} ms: ${over.join(', ')}`).toBeLessThanOrEqual(1);
    for (const ms of latencies) expect(ms).toBeLessThan(Math.max(2 * bound, LOCK_STALE_MS / 2));

    // Every message that reached the transcript is in the final request, in order; no killed partial reply.
    const dir = join(home, 'sessions');
    const index = JSON.parse(await readFile(join(dir, 'sessions.json'), 'utf8')) as { sessions: Record<string, { sessionId: string }> };
    const lines = (await readFile(join(dir, `${index.sessions.k!.sessionId}.jsonl`), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    const stored = lines.filter((l) => l.type === 'message' && l.message.role === 'user').map((l) => l.message.content as string);
    expect(stored).toEqual([...Array.from({ length: KILLS }, (_, i) => `turn ${i}`), 'final']);
    const sent = userTexts(finalReq);
    expect(sent.filter((t) => stored.includes(t))).toEqual(stored);
    expect(JSON.stringify(finalReq.body.messages)).not.toContain(PARTIAL);
    // No lock or temp file of a killed process is left behind once the last run released its own.
    expect((await readdir(join(dir, 'locks'))).filter((n) => !n.endsWith('.stop'))).toEqual([]);
  }, 180_000);
});
