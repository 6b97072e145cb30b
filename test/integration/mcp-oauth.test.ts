/**
 * X1 OAuth for remote MCP servers, through the built CLI and the REAL OS keychain, against a fake OAuth-protected
 * MCP server (test/fake/mcp-oauth.ts: authorization server + protected resource in front of the real
 * server-everything): the first run gets the consent URL (one stderr line) and goes on without the server;
 * `agentdesk mcp test` waits for the (scripted) consent, then connects; the token is in the keychain and in no file;
 * the next run calls a tool with it; an expired token is refreshed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeychain } from '../../main/auth/secrets.js';
import { MCP_KEYCHAIN_SERVICE } from '../../main/mcp/secrets.js';
import { toolLoopScenario } from '../fake/index.js';
import { startFakeOAuthMcp, type FakeOAuthMcp } from '../fake/mcp-oauth.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';
import { cleanEnv, ROOT, runCli } from '../support/cli.js';

const fakes = useCliFakes({ workspacePrefix: 'mcp-oauth-ws' });
const SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const KEYS = { FAKE_ANT_KEY: 'sk-ant-mcp-oauth-key-5150' };
const keychain = await openKeychain({ service: MCP_KEYCHAIN_SERVICE, verifyWrite: true }).then(
  (k) => k,
  () => undefined,
);
const NAME = `secure${process.pid}`;

let upstream: ChildProcess;
let fake: FakeOAuthMcp;
let home: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  if (!keychain) return;
  const port = await freePort();
  upstream = spawn(process.execPath, [SERVER, 'streamableHttp'], { env: { ...cleanEnv(), PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
    upstream.stderr!.on('data', (d: Buffer) => {
      if (/listening/i.test(d.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  fake = await startFakeOAuthMcp(`http://127.0.0.1:${port}/mcp`);
  home = await homeWith(fakeProvidersConfig(fakes, { extra: { mcpServers: { [NAME]: { url: fake.url, approval: 'auto' } }, agent: { model: { primary: 'fakeant/claude-fake' } } } }), 'mcp-oauth-home');
}, 60_000);

afterAll(async () => {
  upstream?.kill();
  await fake?.close();
  await keychain?.delete(`${NAME}:oauth`).catch(() => false);
});

/** Every file under `dir`, read as text. */
async function allFiles(dir: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const name of await readdir(dir)) {
    const p = join(dir, name);
    if ((await stat(p)).isDirectory()) out.push(...(await allFiles(p)));
    else out.push([p, await readFile(p, 'utf8')]);
  }
  return out;
}

const storedTokens = async () => JSON.parse((await keychain!.get(`${NAME}:oauth`)) ?? '{}') as { tokens?: { access_token: string; refresh_token?: string } };

async function runEcho(message: string) {
  const scenario = toolLoopScenario({ toolName: `mcp__${NAME}__echo`, args: { message }, finalText: (r) => `Said: ${r}` });
  fakes.anthropic.enqueue(scenario, scenario);
  const r = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--message', 'echo'], { env: cleanEnv(KEYS), timeoutMs: 60_000 });
  return { r, result: r.lines.at(-1) as { status: string; payloads: { text: string }[] } };
}

describe.skipIf(!keychain)('OAuth for a remote MCP server', () => {
  it('first call → consent URL; after consent the call succeeds, the token is in the keychain only; an expired token is refreshed', async () => {
    // 1. No token yet: the run says where to consent, in one line, and ends ok without the server's tools.
    fakes.anthropic.enqueue({ text: 'Fine.' });
    const first = await runCli(['agent', '--json', '--home', home, '--workspace', fakes.workspace, '--message', 'hi'], { env: cleanEnv(KEYS), timeoutMs: 60_000 });
    expect(first.exitCode, first.stderr).toBe(0);
    const notice = first.stderr.split('\n').filter((l) => l.includes('MCP'));
    expect(notice).toHaveLength(1);
    expect(notice[0]).toMatch(new RegExp(`^agentdesk: MCP server "${NAME}" is not available: authorization needed: open ${fake.issuer}/authorize\\?\\S+ — the run goes on without its tools$`));

    // 2. `mcp test` waits for the consent; the person (scripted) opens the URL and says yes.
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'agentdesk.mjs'), 'mcp', 'test', NAME, '--home', home], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const consentUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no consent URL; stderr: ${stderr}`)), 30_000);
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /open (http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const consent = await fetch(consentUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = consent.headers.get('location')!;
    expect(back).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
    const landing = await fetch(back);
    expect(await landing.text()).toContain('AgentDesk is now authorized');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${NAME}: connected \\(http, server [\\w.-]+\\) — \\d+ tools: .*echo`));
    expect(fake.grants).toEqual(['authorization_code']);

    // The token is in the keychain — and in no file under the home folder.
    const saved = await storedTokens();
    expect(saved.tokens?.access_token).toBe(fake.issued.at(-1));
    for (const [file, text] of await allFiles(home)) {
      expect(text.includes(saved.tokens!.access_token), file).toBe(false);
      expect(text.includes(saved.tokens!.refresh_token!), file).toBe(false);
    }

    // 3. The next run calls a tool with it.
    const ok = await runEcho('with a token');
    expect(ok.r.exitCode, ok.r.stderr).toBe(0);
    expect(ok.result.payloads.map((p) => p.text).join('')).toBe('Said: Echo: with a token');

    // 4. The token expires: the client refreshes it and the call still succeeds.
    fake.expireTokens();
    const again = await runEcho('after expiry');
    expect(again.r.exitCode, again.r.stderr).toBe(0);
    expect(again.result.payloads.map((p) => p.text).join('')).toBe('Said: Echo: after expiry');
    expect(fake.grants).toContain('refresh_token');
    expect((await storedTokens()).tokens?.access_token).toBe(fake.issued.at(-1));
    expect(fake.authorizations).toBe(1); // no second consent
  }, 120_000);
});
