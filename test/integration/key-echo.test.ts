/**
 * X5 "keys never echoed", end to end: fake providers that quote the rejected key back in their 401 — whole, and a
 * cut piece of it, in key formats without any `sk-` prefix (which no pattern could recognise) — through the real
 * CLI (plain and --json), a key that works after it (rotation: retry events, auth state), a run that fails on its
 * only key (the error printed and stored), `auth list`, and the exec tool's environment (a variable that merely
 * CONTAINS a key). Afterwards not one copy of any key — whole, any 8-character piece, hex or base64 — is in any
 * file under the home or the workspace, on stdout, on stderr or in the --json lines. Positive controls: the fakes
 * received every key, and their 401 bodies really carried it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, trailingToolResults, type FakeProvider, type FakeTurn, type RecordedRequest } from '../fake/index.js';
import { cleanEnv, ensureBuilt, runCli, tempDir, writeConfig } from '../support/cli.js';
import { filesAsSeen, leaksInAll, requestKey, type Seen } from '../support/secret-leaks.js';

const hex = () => randomBytes(20).toString('hex');
const KEYS = {
  antRejected: hex(), // 40 hex digits: no prefix at all
  antGood: `ak_live_${hex()}`,
  oaiRejected: `proxy.${hex()}`,
};
const ALL = Object.values(KEYS);
const ENV = { KE_ANT_A: KEYS.antRejected, KE_ANT_B: KEYS.antGood, KE_OAI: KEYS.oaiRejected, KE_DB_URL: `postgres://u:${KEYS.antGood}@db/x` };

let anthropic: FakeProvider;
let openai: FakeProvider;
let home = '';
let workspace = '';
const seen: Seen[] = [];
const quoted: string[] = [];

/** Anthropic's 401, as a proxy that quotes the key would send it. */
const antReject = (key: string): FakeTurn => {
  const body = { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${key} (key …${key.slice(-14)} not found)` } };
  quoted.push(JSON.stringify(body));
  return { fault: { kind: 'http', status: 401, body } };
};
/** OpenAI's 401 wording, with the key in full. */
const oaiReject = (key: string): FakeTurn => {
  const body = { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://example.invalid.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
  quoted.push(JSON.stringify(body));
  return { fault: { kind: 'http', status: 401, body } };
};

beforeAll(async () => {
  await ensureBuilt();
  [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
  anthropic.setDefault((req: RecordedRequest) => {
    const key = requestKey(req);
    if (key === KEYS.antRejected) return antReject(key);
    if (trailingToolResults(req) === null) return { toolCalls: [{ name: 'exec', arguments: { command: 'env | sort' } }] };
    return { text: 'Listed the environment.' };
  });
  openai.setDefault((req: RecordedRequest) => oaiReject(requestKey(req)));
  home = await tempDir('keyecho-home');
  workspace = await tempDir('keyecho-ws');
  await writeConfig(home, {
    providers: {
      kant: { api: 'anthropic', baseUrl: anthropic.baseUrl, models: [{ id: 'claude-fake' }] },
      koai: { api: 'openai-chat', baseUrl: openai.baseUrl, models: [{ id: 'gpt-fake' }] },
    },
    authProfiles: [
      { id: 'kant:a', provider: 'kant', apiKeyEnv: 'KE_ANT_A' },
      { id: 'kant:b', provider: 'kant', apiKeyEnv: 'KE_ANT_B' },
      { id: 'koai:only', provider: 'koai', apiKeyEnv: 'KE_OAI' },
    ],
    agent: { model: { primary: 'kant/claude-fake' }, approvals: { mode: 'auto' } },
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([anthropic?.close(), openai?.close()]);
});

async function cli(label: string, args: string[]) {
  const r = await runCli(args, { env: cleanEnv(ENV), timeoutMs: 60_000 });
  seen.push({ where: `${label} stdout`, text: r.stdout }, { where: `${label} stderr`, text: r.stderr });
  return r;
}

describe('a provider that quotes the key in its 401', () => {
  it('leaves no copy of any key in any file, on stdout, on stderr or in --json', async () => {
    // --json: the first key is rejected (quoted back), the run rotates to the second, which runs `env`.
    const json = await cli('agent --json', ['agent', '--json', '--home', home, '--workspace', workspace, '--message', 'list the environment']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(json.stdout).toContain('"stream":"retry"');
    expect(json.stdout).toContain('"reason":"auth"');
    expect(json.stdout).toContain('[redacted]');
    // plain, on the OpenAI-compatible provider whose only key is rejected: the run fails, the error is printed.
    const plain = await cli('agent plain', ['agent', '--home', home, '--workspace', workspace, '--model', 'koai/gpt-fake', '--message', 'hi']);
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toMatch(/Incorrect API key provided: \[redacted\]/);
    // --json again, failing: the result line carries the error
    const failing = await cli('agent --json failing', ['agent', '--json', '--home', home, '--workspace', workspace, '--model', 'koai/gpt-fake', '--message', 'again']);
    expect(failing.exitCode).toBe(1);
    const list = await cli('auth list', ['auth', 'list', '--home', home]);
    expect(list.stdout).toMatch(/kant:a.*last error: .*\[redacted\]/);

    // positive controls: every key reached a fake, the 401s quoted them, `env` ran in the sandbox
    const sent = new Set([...anthropic.requests, ...openai.requests].map(requestKey));
    for (const key of ALL) expect(sent.has(key)).toBe(true);
    const bodies = quoted.map((text, i) => ({ where: `401 body #${i + 1}`, text }));
    expect(leaksInAll([KEYS.antRejected], bodies)).toHaveLength(1);
    expect(leaksInAll([KEYS.oaiRejected], bodies)).toHaveLength(1); // after its 401 the key rests: the next run does not send it
    expect(json.stdout).toMatch(/PATH=/);
    expect(json.stdout).not.toMatch(/KE_DB_URL=/); // the variable that merely contains a key is withheld

    seen.push(...(await filesAsSeen(home, 'home')), ...(await filesAsSeen(workspace, 'workspace')));
    expect(seen.some((s) => s.where.endsWith('auth-state.json'))).toBe(true);
    expect(seen.some((s) => s.where.endsWith('.jsonl'))).toBe(true);
    expect(leaksInAll(ALL, seen)).toEqual([]);
  }, 120_000);
});
