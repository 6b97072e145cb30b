/**
 * Issue 18 item 9 where a person meets the messages: the built `agentdesk` bin (a new process per run) against the
 * fake providers through the real SDKs. Each situation's stderr line is pinned to the catalogue's wording
 * (preload/messages/): it names the provider and the key as configured, says what happened and what to do, and
 * never shows an internal category ("auth:", "rate_limit:") or a stack trace. Exit codes are the SPEC's: 1 for a
 * run that failed, 2 for bad usage, a bad config or a bad folder.
 */
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir, type CliResult } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'msg-ws' });
const KEYS = { ANT_WORK: 'sk-ant-work-msg-000000001', ANT_HOME: 'sk-ant-home-msg-000000002', ROUTER_KEY: 'sk-or-team-msg-0000000003' };
const NO_KEYTAR = ['--import', join(ROOT, 'test/support/no-keytar.mjs')];

/** Internal words a person must never read as a prefix, and a stack trace's frames. */
const INTERNAL_PREFIX = /(^|[\s(])(auth|rate_limit|billing|timeout|internal|bad_request|not_found|server_error|model_not_found|overloaded|unknown):/m;
const STACK = /\n\s+at |\bat \S+ \([^)]*:\d+:\d+\)/;

/** fakeant with keys 'work' and 'home' (or `profiles`), and "openrouter" — an OpenAI-compatible provider the person named. */
const newHome = (profiles = ['work', 'home'], extra: Record<string, unknown> = {}) => {
  const config = fakeProvidersConfig(fakes, {
    authProfiles: [
      ...profiles.map((p) => ({ id: `fakeant:${p}`, provider: 'fakeant', apiKeyEnv: `ANT_${p.toUpperCase()}` })),
      { id: 'openrouter:team', provider: 'openrouter', apiKeyEnv: 'ROUTER_KEY' },
    ],
    extra,
  }) as { providers: Record<string, unknown> };
  config.providers.openrouter = { api: 'openai-chat', baseUrl: fakes.openai.baseUrl, models: [{ id: 'gpt-fake' }] };
  return homeWith(config, 'msg');
};

const agent = (home: string, args: string[], opts: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {}) =>
  runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--message', 'hello', ...args], { env: opts.env ?? cleanEnv(KEYS), ...(opts.nodeArgs ? { nodeArgs: opts.nodeArgs } : {}) });

/** The last stderr line, and the checks every message here passes. */
function lastLine(r: CliResult): string {
  expect(r.stderr).not.toMatch(INTERNAL_PREFIX);
  expect(r.stderr).not.toMatch(STACK);
  for (const key of Object.values(KEYS)) expect(r.stderr + r.stdout).not.toContain(key);
  return r.stderr.trimEnd().split('\n').at(-1)!;
}

/** A port nothing listens on (taken, then freed). */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('a provider call that fails names the provider and the key as configured', () => {
  it('bad key (one key): exit 1, "fakeant key \'work\' was rejected (401)"', async () => {
    fakes.anthropic.setDefault({ fault: { kind: 'auth' } });
    const r = await agent(await newHome(['work']), ['--model', 'fakeant/claude-fake']);
    expect(r.exitCode).toBe(1);
    expect(lastLine(r)).toBe("agentdesk: run error: fakeant key 'work' was rejected (401): invalid x-api-key");
  });

  it('bad key at an OpenAI-compatible provider: named as configured (OpenRouter), not the API family (OpenAI)', async () => {
    fakes.openai.setDefault({ fault: { kind: 'auth' } });
    const r = await agent(await newHome(), ['--model', 'openrouter/gpt-fake', '--json']);
    expect(r.exitCode).toBe(1);
    const result = r.lines.at(-1) as { meta: { error: string } };
    expect(result.meta.error).toMatch(/^OpenRouter key 'team' was rejected \(401\): Incorrect API key provided: sk-\*\*\*/);
    expect(result.meta.error).not.toContain('OpenAI rejected');
  });

  it('both keys rejected: the retry line, then that every key rests, until when, what to do, and the last error', async () => {
    fakes.anthropic.setDefault({ fault: { kind: 'auth' } });
    const r = await agent(await newHome(), ['--model', 'fakeant/claude-fake']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^agentdesk: key rejected on fakeant:(work|home), switching to fakeant:(work|home)$/m);
    expect(lastLine(r)).toMatch(
      /^agentdesk: run error: Every key of fakeant is cooling down after errors \('(work|home)': key rejected, '(work|home)': key rejected\); the first is ready again in 10 min\. Fix or replace the key in Settings › Keys \(or agentdesk auth add\), or pick another model\. Last error: fakeant key '\w+' was rejected \(401\): invalid x-api-key$/,
    );
  });

  it('provider down (nothing listens at its address): exit 1, "Could not reach down: nothing answered at its address…"', async () => {
    const home = await homeWith(
      { providers: { down: { api: 'openai-chat', baseUrl: `http://127.0.0.1:${await closedPort()}/v1`, models: [{ id: 'm' }] } }, authProfiles: [{ id: 'down:main', provider: 'down', apiKeyEnv: 'ROUTER_KEY' }] },
      'msg',
    );
    const r = await agent(home, ['--model', 'down/m']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^agentdesk: timed out on down:main, retrying in [\d.]+ m?s$/m);
    expect(lastLine(r)).toMatch(
      /^agentdesk: run error: Failed after 3 attempts — tried down\/m: down:main \(timeout\)\. Last error: Could not reach down: nothing answered at its address \(connection refused: is the server running, is the base URL right\?\)/,
    );
  });

  it('rate-limited on every key, then every key cooling: which keys, why, when ready, what to do', async () => {
    fakes.anthropic.setDefault({ fault: { kind: 'rate_limit', retryAfterSeconds: 600 } });
    const home = await newHome();
    const first = await agent(home, ['--model', 'fakeant/claude-fake']);
    expect(first.exitCode).toBe(1);
    expect(first.stderr).toMatch(/^agentdesk: rate-limited on fakeant:(work|home), switching to fakeant:(work|home)$/m);
    expect(lastLine(first)).toMatch(RATE_COOLING);
    // Both keys now cool down: the next run says so (after one probe of the provider).
    const before = fakes.anthropic.requests.length;
    const second = await agent(home, ['--model', 'fakeant/claude-fake']);
    expect(second.exitCode).toBe(1);
    expect(fakes.anthropic.requests.length - before).toBeLessThanOrEqual(1);
    expect(lastLine(second)).toMatch(RATE_COOLING);
  }, 60_000);

  it('every key rejected earlier: the next run asks for nothing and says what to fix', async () => {
    fakes.anthropic.setDefault({ fault: { kind: 'auth' } });
    const home = await newHome();
    expect((await agent(home, ['--model', 'fakeant/claude-fake'])).exitCode).toBe(1);
    const before = fakes.anthropic.requests.length;
    const r = await agent(home, ['--model', 'fakeant/claude-fake']);
    expect(r.exitCode).toBe(1);
    expect(fakes.anthropic.requests.length).toBe(before);
    expect(lastLine(r)).toMatch(
      /^agentdesk: run error: Every key of fakeant is cooling down after errors \('(work|home)': key rejected, '(work|home)': key rejected\); the first is ready again in (9|10) min\. Fix or replace the key in Settings › Keys \(or agentdesk auth add\), or pick another model\.$/,
    );
  });
});

describe('before any call: no keychain, a bad folder, a bad config', () => {
  it('no keychain and no key: exit 1, only the environment variable is offered, with why', async () => {
    const r = await agent(await tempDir('msg-nokc'), ['--model', 'anthropic/claude-sonnet-4-5'], { env: cleanEnv(), nodeArgs: NO_KEYTAR });
    expect(r.exitCode).toBe(1);
    expect(lastLine(r)).toBe(
      'agentdesk: run error: No API key for provider "anthropic": set ANTHROPIC_API_KEY. (No OS keychain is available: the keytar native module could not be loaded; keys cannot be stored until it is.)',
    );
  });

  it('no keychain at auth add: exit 1, one line with the reason and the fix', async () => {
    const r = await runCli(['auth', 'add', '--provider', 'anthropic', '--label', 'work', '--home', await tempDir('msg-nokc')], { nodeArgs: NO_KEYTAR, input: 'sk-ant-secret-msg-00000001\n' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(lastLine(r)).toMatch(/^agentdesk: No OS keychain is available: the keytar native module could not be loaded\. Install libsecret /);
  });

  it.each([
    ['a folder that does not exist', ['--workspace', '/nonexistent/msg-ws'], 'agentdesk: Workspace folder does not exist: /nonexistent/msg-ws'],
  ])('%s: exit 2, one line naming it', async (_what, args, line) => {
    const r = await runCli(['agent', '--home', await newHome(), '--model', 'fakeant/claude-fake', '--message', 'x', ...args], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([line]);
  });

  it('a file given as the folder: exit 2, one line', async () => {
    const file = join(await tempDir('msg-file'), 'notes.txt');
    await writeFile(file, 'x');
    const r = await runCli(['agent', '--home', await newHome(), '--model', 'fakeant/claude-fake', '--message', 'x', '--workspace', file], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(lastLine(r)).toContain(file);
  });

  it.each([
    ['not JSON', '{ "providers": ', /^agentdesk: config\.json is not valid JSON: .*\(line 1, column \d+\)$/],
    ['a wrong type', JSON.stringify({ agent: { timeoutSeconds: 'soon' } }), /^agentdesk: config\.json: agent\.timeoutSeconds: expected a number, got "soon"$/],
  ])('config.json %s: exit 2, one line naming the field', async (_what, text, line) => {
    const home = await tempDir('msg-cfg');
    await writeFile(join(home, 'config.json'), text);
    const r = await runCli(['agent', '--home', home, '--message', 'x'], { env: cleanEnv(KEYS) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(lastLine(r)).toMatch(line);
  });
});

describe('approvals: a person who said no, and no person to ask', () => {
  const execCall = { toolCalls: [{ name: 'write', arguments: { path: 'msg-approval.txt', content: 'x' } }] };

  it('no terminal: "not run, nobody was asked" with what to do — never "The person denied"', async () => {
    fakes.anthropic.setDefault({ text: 'ok' });
    fakes.anthropic.enqueue(execCall, { text: 'I could not write the file.' });
    const before = fakes.anthropic.requests.length;
    const r = await agent(await newHome(['work']), ['--model', 'fakeant/claude-fake', '--approve', 'ask']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('agentdesk: not run, nobody was asked: write: msg-approval.txt: no terminal to ask on: run with --approve auto to allow such calls, or run it in a terminal to be asked');
    expect(r.stderr).toContain('✗ write');
    expect(r.stderr).toContain('This write call needs approval and nobody could be asked');
    expect(r.stderr).not.toMatch(/person denied/i);
    // What the model was told is the same: nobody was asked.
    const told = JSON.stringify(fakes.anthropic.requests.slice(before).at(-1)?.body.messages);
    expect(told).toContain('nobody could be asked');
    expect(told).not.toContain('The person denied');
  });

  it('--approve deny: refused by the setting, never "The person denied"', async () => {
    fakes.anthropic.enqueue(execCall, { text: 'Refused.' });
    const r = await agent(await newHome(['work']), ['--model', 'fakeant/claude-fake', '--approve', 'deny']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('Not run: approvals are set to deny: write calls are refused without asking.');
    expect(r.stderr).not.toMatch(/person denied/i);
  });

  it.runIf(existsSync('/usr/bin/script'))('a person at a terminal answers no: "The person denied this write call: denied at the terminal"', async () => {
    fakes.anthropic.enqueue(execCall, { text: 'Understood.' });
    const home = await newHome(['work']);
    const before = fakes.anthropic.requests.length;
    const command = `node bin/agentdesk.mjs agent --home ${home} --workspace ${fakes.workspace} --model fakeant/claude-fake --approve ask --message hello`;
    const screen = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cleanEnv(KEYS), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let typed = false;
      const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no prompt in: ${JSON.stringify(out)}`))), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        if (!typed && out.includes('[N] deny: ')) {
          typed = true;
          setTimeout(() => child.stdin.write('n\r'), 200);
        }
      });
      child.on('error', reject);
      child.on('close', () => (clearTimeout(timer), resolve(out)));
    });
    expect(screen).toContain('agentdesk: allow write: msg-approval.txt?');
    expect(screen).toContain('The person denied this write call: denied at the terminal. It did not run');
    expect(screen).not.toContain('nobody was asked');
    expect(JSON.stringify(fakes.anthropic.requests.slice(before).at(-1)?.body.messages)).toContain('The person denied this write call: denied at the terminal.');
  }, 60_000);
});

const RATE_COOLING =
  /^agentdesk: run error: Every key of fakeant is cooling down after errors \('(work|home)': rate limit, '(work|home)': rate limit\); the first is ready again in (9|10) min\. Wait, add another key in Settings › Keys \(or agentdesk auth add\), or pick another model\. Last error: fakeant key '(work|home)' hit a rate limit \(429\): This request would exceed the rate limit/;
