/**
 * X1 remote servers through the built CLI: the REAL reference server `@modelcontextprotocol/server-everything` over
 * Streamable HTTP (`streamableHttp`, path /mcp) with both provider SDKs, and over the older HTTP+SSE transport
 * (`sse`, path /sse) reached through the fallback: the Streamable HTTP POST to /sse answers 404, the client retries
 * with SSE. `agentdesk mcp test` connects to both and names the tool count.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolLoopScenario } from '../fake/index.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';
import { cleanEnv, ROOT, runCli } from '../support/cli.js';

const fakes = useCliFakes({ workspacePrefix: 'mcp-http-ws' });
const SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const KEYS = { FAKE_ANT_KEY: 'sk-ant-mcp-http-key-0a1b2c', FAKE_OAI_KEY: 'sk-oai-mcp-http-key-3d4e5f' };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts server-everything with `transport` on a free port; resolves once it listens. */
async function startServer(transport: 'streamableHttp' | 'sse'): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER, transport], { env: { ...cleanEnv(), PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything ${transport} did not start`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      if (/listening|running on port/i.test(d.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`, child };
}

let http: { url: string; child: ChildProcess };
let sse: { url: string; child: ChildProcess };

beforeAll(async () => {
  [http, sse] = await Promise.all([startServer('streamableHttp'), startServer('sse')]);
}, 60_000);

afterAll(() => {
  http?.child.kill();
  sse?.child.kill();
});

async function runEcho(url: string, model: string, which: 'anthropic' | 'openai') {
  const h = await homeWith(fakeProvidersConfig(fakes, { extra: { mcpServers: { everything: { url } }, agent: { model: { primary: model } } } }), 'mcp-http-home');
  const scenario = toolLoopScenario({ toolName: 'mcp__everything__echo', args: { message: `via ${which}` }, finalText: (r) => `Got: ${r}` });
  fakes[which].enqueue(scenario, scenario);
  const r = await runCli(['agent', '--json', '--home', h, '--workspace', fakes.workspace, '--message', 'echo please', '--approve', 'auto'], {
    env: cleanEnv(KEYS),
    timeoutMs: 60_000,
  });
  return { r, h, result: r.lines.at(-1) as { status: string; payloads: { text: string }[] } };
}

describe('MCP over HTTP against server-everything', () => {
  it.each([
    ['Anthropic', 'fakeant/claude-fake', 'anthropic'],
    ['OpenAI Chat', 'fakeoai/gpt-fake', 'openai'],
  ] as const)('Streamable HTTP, %s: echo round-trips', async (_l, model, which) => {
    const { r, result } = await runEcho(http.url, model, which);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result.payloads.map((p) => p.text).join('')).toBe(`Got: Echo: via ${which}`);
  }, 60_000);

  it('an older HTTP+SSE server: the 404 on POST falls back to SSE, and echo round-trips', async () => {
    const { r, result, h } = await runEcho(sse.url, 'fakeant/claude-fake', 'anthropic');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result.payloads.map((p) => p.text).join('')).toBe('Got: Echo: via anthropic');
    const test = await runCli(['mcp', 'test', 'everything', '--home', h], { env: cleanEnv(), timeoutMs: 30_000 });
    expect(test.exitCode, test.stderr).toBe(0);
    expect(test.stdout).toMatch(/^everything: connected \(http, server [\d.]+\) — \d+ tools: .*echo/);
  }, 60_000);

  it('mcp test on a server that is not there: exit 1 and one line', async () => {
    const port = await freePort();
    const h = await homeWith({ mcpServers: { gone: { url: `http://127.0.0.1:${port}/mcp` } } }, 'mcp-http-home');
    const test = await runCli(['mcp', 'test', 'gone', '--home', h], { env: cleanEnv(), timeoutMs: 30_000 });
    expect(test.exitCode).toBe(1);
    expect(test.stderr.trim().split('\n')).toHaveLength(1);
    expect(test.stderr).toMatch(/^agentdesk: MCP server "gone" failed: .*(refused|fetch failed)/i);
  }, 60_000);
});
