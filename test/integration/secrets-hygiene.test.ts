/**
 * Issue 10 item 3, secrets hygiene. Keys enter the app the ways a person adds them — `agentdesk auth add` into the
 * real OS keychain (gnome-keyring on the private D-Bus session test/run.sh starts) and env-variable profiles (names
 * without "KEY", so only the app's knowledge of its profiles can keep them out of a child) — and then get used:
 * a 401 on one keychain key, a 429 on the other, turns with an `exec` tool call that prints its environment
 * (`env`, `/proc/self/environ`, `/proc/$PPID/environ`), through the CLI (plain and --json) and through
 * `out/main/web.js` (what `npm run web` runs) with every WebSocket frame recorded.
 *
 * Then everything the app wrote or sent is searched: every file under the home and the workspace (transcripts,
 * index, auth state, config, logs), the stdout/stderr of every process, every WebSocket frame, and the exec
 * children's environment (it is in the tool output, which is in the transcript and the frames — and checked on
 * its own). No key may appear — neither whole, nor any 8-character piece of its secret part, nor base64 or hex of
 * it. The only fragment allowed is the mask (`sk-ant…` + last 4), which must appear where keys are listed.
 * Positive controls: the fake servers saw every key (so they were really used), and the exec output really holds
 * an environment listing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeAnthropic, startFakeOpenAI, type FakeProvider } from '../fake/index.js';
import { cleanEnv, ensureBuilt, ROOT, runCli, tempDir, writeConfig } from '../support/cli.js';
import { filesAsSeen, leaksInAll, printEnvScenario, requestKey, type Seen } from '../support/secret-leaks.js';

const HAS_KEYCHAIN = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const tag = randomBytes(3).toString('hex'); // unique provider names: the keychain is shared by the whole test run
const ANT = `hyga${tag}`;
const OAI = `hygo${tag}`;
const secret = () => randomBytes(20).toString('hex');
const KEYS = {
  keychainWork: `sk-ant-${secret()}`,
  keychainSpare: `sk-ant-${secret()}`,
  envAnt: `sk-ant-${secret()}`,
  envOai: `sk-proj-${secret()}`,
};
const ALL_KEYS = Object.values(KEYS);
const ENV = { HYG_ANT: KEYS.envAnt, HYG_OAI: KEYS.envOai };

let anthropic: FakeProvider;
let openai: FakeProvider;
let home: string;
let workspace: string;
/** Everything the app printed or sent, by where it came from. */
const seen: Seen[] = [];
const execOutputs: string[] = [];

/** Per key: the work key is rejected, the spare one rate-limited, the env keys run an exec that prints its env. */
const scenario = printEnvScenario((key) => (key === KEYS.keychainWork ? 'auth' : key === KEYS.keychainSpare ? 'rate_limit' : undefined), execOutputs);

beforeAll(async () => {
  await ensureBuilt();
  [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
  anthropic.setDefault(scenario);
  openai.setDefault(scenario);
  home = await tempDir('hyg-home');
  workspace = await tempDir('hyg-ws');
  await writeConfig(home, {
    providers: {
      [ANT]: { api: 'anthropic', baseUrl: anthropic.baseUrl, models: [{ id: 'claude-fake' }] },
      [OAI]: { api: 'openai-chat', baseUrl: openai.baseUrl, models: [{ id: 'gpt-fake' }] },
    },
    authProfiles: [
      ...(HAS_KEYCHAIN ? [{ id: `${ANT}:work`, provider: ANT }, { id: `${ANT}:spare`, provider: ANT }] : []),
      { id: `${ANT}:env`, provider: ANT, apiKeyEnv: 'HYG_ANT' },
      { id: `${OAI}:env`, provider: OAI, apiKeyEnv: 'HYG_OAI' },
    ],
    agent: { model: { primary: `${ANT}/claude-fake` }, approvals: { mode: 'auto' } }, // exec runs without asking
  });
}, 120_000);

afterAll(async () => {
  if (HAS_KEYCHAIN) for (const label of ['work', 'spare']) await runCli(['auth', 'remove', `${ANT}:${label}`, '--home', home], { env: cleanEnv() });
  await Promise.all([anthropic?.close(), openai?.close()]);
});

/** Runs the CLI and records its output. */
async function cli(label: string, args: string[], opts: { input?: string } = {}) {
  const r = await runCli(args, { env: cleanEnv(ENV), ...opts });
  seen.push({ where: `${label} stdout`, text: r.stdout }, { where: `${label} stderr`, text: r.stderr });
  return r;
}

/** Starts web.js, runs one agent turn per model over the WebSocket, and records every frame both ways. */
async function webSession(): Promise<void> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'out/main/web.js'), '--home', home, '--workspace', workspace, '--port', '0'], {
    env: cleanEnv(ENV),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`web.js printed no URL: ${stderr}`)), 20_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        stdout += `${line}\n`;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([0-9a-f]+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(`${m[1]!.replace('http', 'ws')}/ws?token=${m[2]}`);
        }
      });
    });
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const frames: string[] = [];
    const waiters: ((frame: Record<string, unknown>) => void)[] = [];
    ws.on('message', (d) => {
      const text = String(d);
      frames.push(text);
      const frame = JSON.parse(text) as Record<string, unknown>;
      for (const w of [...waiters]) w(frame);
    });
    const until = (pred: (f: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const w = (f: Record<string, unknown>) => {
          if (!pred(f)) return;
          waiters.splice(waiters.indexOf(w), 1);
          resolve(f);
        };
        waiters.push(w);
      });
    let n = 0;
    const call = async (method: string, params: unknown) => {
      const id = `h${n++}`;
      const sent = JSON.stringify({ id, method, params });
      frames.push(sent);
      const reply = until((f) => f.id === id);
      ws.send(sent);
      return (await reply) as { result?: Record<string, unknown>; error?: unknown };
    };
    for (const model of [`${ANT}/claude-fake`, `${OAI}/gpt-fake`]) {
      const accepted = await call('agent', { message: `web turn on ${model}`, sessionKey: `web-${model}`, model });
      const runId = accepted.result!.runId;
      const ended = await until((f) => {
        const e = f.event as { runId?: string; stream?: string; data?: { phase?: string } } | undefined;
        return e !== undefined && e.runId === runId && e.stream === 'lifecycle' && (e.data?.phase === 'end' || e.data?.phase === 'error');
      });
      expect((ended.event as { data: { phase: string } }).data.phase, JSON.stringify(ended)).toBe('end');
      await call('sessions.history', { sessionKey: `web-${model}` });
    }
    await call('sessions.list', {});
    await call('auth.status', {});
    ws.close();
    seen.push({ where: 'web.js WebSocket frames', text: frames.join('\n') });
    expect(frames.join('\n')).toContain('Checked the environment.');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
    seen.push({ where: 'web.js stdout', text: stdout }, { where: 'web.js stderr', text: stderr });
  }
}

describe('secrets hygiene: no key anywhere the app writes or sends', () => {
  it('keys via auth add (keychain) and env profiles; 401, 429, exec printing its environment; CLI and WebSocket', async () => {
    if (HAS_KEYCHAIN) {
      for (const [label, key] of [['work', KEYS.keychainWork], ['spare', KEYS.keychainSpare]] as const) {
        const added = await cli(`auth add ${label}`, ['auth', 'add', '--provider', ANT, '--label', label, '--home', home], { input: `${key}\n` });
        expect(added.exitCode, added.stderr).toBe(0);
        expect(added.stdout).toContain(`…${key.slice(-4)}`);
      }
    } else {
      console.log('secrets-hygiene: no D-Bus session — the keychain part is skipped (test/run.sh provides one)');
    }

    // CLI, --json: the keychain keys fail (401, 429), the env key runs the exec turn
    const json = await cli('agent --json', ['agent', '--json', '--home', home, '--workspace', workspace, '--message', 'show me the environment']);
    expect(json.exitCode, json.stderr).toBe(0);
    if (HAS_KEYCHAIN) expect(json.stdout).toContain('"reason":"auth"');
    // CLI, plain, on the OpenAI env profile
    const plain = await cli('agent plain', ['agent', '--home', home, '--workspace', workspace, '--model', `${OAI}/gpt-fake`, '--message', 'and again']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    await cli('auth list', ['auth', 'list', '--home', home]);

    await webSession();

    // positive controls: every key reached a fake server; the exec printed environments
    const sentKeys = new Set([...anthropic.requests, ...openai.requests].map(requestKey));
    for (const key of HAS_KEYCHAIN ? ALL_KEYS : [KEYS.envAnt, KEYS.envOai]) expect(sentKeys.has(key)).toBe(true);
    expect(execOutputs.length).toBeGreaterThanOrEqual(4);
    for (const out of execOutputs) {
      expect(out).toMatch(/^PATH=/m);
      expect(out).toContain('---parent');
      expect(out.slice(0, out.indexOf('---parent'))).not.toMatch(/^HYG_(ANT|OAI)=/m); // withheld from the child (its own env and /proc/self/environ)
    }

    // everything the app wrote
    seen.push(...(await filesAsSeen(home, 'home')), ...(await filesAsSeen(workspace, 'workspace')));
    for (const [i, out] of execOutputs.entries()) seen.push({ where: `exec child environment #${i + 1}`, text: out });
    expect(seen.some((s) => s.where.includes('sessions.json'))).toBe(true);
    expect(seen.some((s) => s.where.endsWith('.jsonl'))).toBe(true);

    expect(leaksInAll(ALL_KEYS, seen)).toEqual([]);
    // the mask is the only fragment, and it is shown where keys are listed
    if (HAS_KEYCHAIN) expect(seen.find((s) => s.where === 'auth list stdout')!.text).toContain(`…${KEYS.keychainWork.slice(-4)}`);
  }, 120_000);
});
