/**
 * Several `agentdesk agent` processes sharing one home folder (E3 across processes, E22 index): each command is a
 * new process of the built bin, the real Anthropic SDK talks to the fake server, which records every request.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeProvider, type RecordedRequest } from '../fake/index.js';
import { ROOT, cleanEnv, ensureBuilt, runCli, tempDir, writeConfig } from '../support/cli.js';

let fake: FakeProvider;
let workspace: string;
// The demo model at its own pace (not the tests' 0): four of its turns stream at once.
const env = cleanEnv({ FAKE_ANT_KEY: 'sk-ant-concurrency-0001', AGENTDESK_DEMO_CHUNK_MS: '12' });

beforeAll(async () => {
  await ensureBuilt();
  fake = await startFakeAnthropic();
  workspace = await tempDir('cc-ws');
}, 120_000);
afterAll(async () => fake?.close());

async function newHome(): Promise<string> {
  const home = await tempDir('cc-home');
  await writeConfig(home, {
    providers: { fakeant: { api: 'anthropic', baseUrl: fake.baseUrl, models: [{ id: 'claude-fake' }] } },
    authProfiles: [{ id: 'fakeant:test', provider: 'fakeant', apiKeyEnv: 'FAKE_ANT_KEY' }],
    agent: { model: { primary: 'fakeant/claude-fake' } },
  });
  return home;
}

/** [role, text] of each message the model was sent. */
function conversation(req: RecordedRequest): [string, string][] {
  return (req.body.messages as { role: string; content: { type: string; text?: string }[] }[]).map((m) => [
    m.role,
    m.content.map((b) => b.text ?? b.type).join(' | '),
  ]);
}

const lastUserText = (req: RecordedRequest) => conversation(req).filter(([r]) => r === 'user').at(-1)?.[1] ?? '';

describe('processes sharing one home folder', () => {
  it('two processes on one session serialise: the second request carries the first turn', async () => {
    const home = await newHome();
    fake.requests.length = 0;
    fake.setDefault((req) => ({ text: `reply to ${lastUserText(req)}`, chunkSize: 2, delayMs: 40 }));
    const args = (message: string) => ['agent', '--json', '--home', home, '--workspace', workspace, '--session', 'shared', '--message', message];
    const [a, b] = await Promise.all([runCli(args('alpha'), { env }), runCli(args('beta'), { env })]);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests as [RecordedRequest, RecordedRequest];
    const firstWord = lastUserText(first);
    const secondWord = firstWord === 'alpha' ? 'beta' : 'alpha';
    expect(conversation(first)).toEqual([['user', firstWord]]);
    expect(conversation(second)).toEqual([
      ['user', firstWord],
      ['assistant', `reply to ${firstWord}`],
      ['user', secondWord],
    ]);
    const dir = join(home, 'sessions');
    const transcript = (await readdir(dir)).find((f) => f.endsWith('.jsonl'))!;
    const roles = (await readFile(join(dir, transcript), 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l).message.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
  }, 60_000);

  it('four processes on four sessions keep every index entry, round after round', async () => {
    const home = await newHome();
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          runCli(['agent', '--json', '--home', home, '--workspace', workspace, '--model', 'demo/agent', '--session', `s${i}`, '--message', `hello ${round}`], { env }),
        ),
      );
      expect(results.map((r) => r.exitCode)).toEqual([0, 0, 0, 0]);
      const index = JSON.parse(await readFile(join(home, 'sessions', 'sessions.json'), 'utf8'));
      expect(Object.keys(index.sessions).sort()).toEqual(['s0', 's1', 's2', 's3']);
    }
    // Every session's second turn carried its first (no entry was lost and recreated empty).
    const index = JSON.parse(await readFile(join(home, 'sessions', 'sessions.json'), 'utf8'));
    for (const entry of Object.values(index.sessions) as { sessionId: string }[]) {
      const lines = (await readFile(join(home, 'sessions', `${entry.sessionId}.jsonl`), 'utf8')).trim().split('\n');
      expect(lines.filter((l) => JSON.parse(l).message?.role === 'user')).toHaveLength(2);
    }
  }, 60_000);

  it('a killed process leaves an unanswered turn: its lock is taken over at once and the next request notes the missing reply', async () => {
    const home = await newHome();
    fake.requests.length = 0;
    fake.setDefault((req) => (lastUserText(req) === 'hang' ? { fault: { kind: 'hang' } } : { text: 'fine' }));
    const child = execa('node', [join(ROOT, 'bin', 'agentdesk.mjs'), 'agent', '--home', home, '--workspace', workspace, '--session', 'k', '--message', 'hang'], {
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await child;
    const started = Date.now();
    const next = await runCli(['agent', '--home', home, '--workspace', workspace, '--session', 'k', '--message', 'plain again'], { env });
    expect(next.exitCode).toBe(0);
    // The dead holder's lock was taken over at once (its PID names no live process): no wait, and no "waiting for
    // another run" notice — there is no other run. (The 10-consecutive-kills proof with timings is crash-kill.test.ts.)
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(next.stderr).not.toMatch(/waiting for another run/);
    expect(next.stdout).toBe('fine');
    expect(conversation(fake.requests.at(-1)!)).toEqual([
      ['user', 'hang'],
      ['assistant', '(no reply: the run ended before answering)'],
      ['user', 'plain again'],
    ]);
  }, 60_000);
});
