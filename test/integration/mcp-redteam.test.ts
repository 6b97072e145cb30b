/**
 * X1 MCP attacked, in process, against a hostile stdio server (test/fake/mcp-hostile.mjs): what a malicious or
 * broken server can do to the person and the app through what it lists, prints and answers.
 *
 * - Terminal escapes, bidi overrides and Unicode tag characters in tool names, titles, descriptions, its version,
 *   stderr and progress messages: a name that is not what it shows is left out; the rest shown without them.
 * - One huge answer line: read in linear time (the process is not frozen), the call completes.
 * - A tool named like a built-in: offered under its own prefixed name.
 * - A tool that never answers: cut off at its timeout.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpServerConfigSchema, type McpServerConfig } from '../../main/mcp/config.js';
import { McpManager } from '../../main/mcp/manager.js';
import { LineReader } from '../../main/mcp/stdio-transport.js';
import { toolLoopScenario } from '../fake/index.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';
import { cleanEnv, runCli } from '../support/cli.js';

const SERVER = join(import.meta.dirname, '..', 'fake', 'mcp-hostile.mjs');
/** Anything a terminal or the window would act on or hide (tab and newline aside). */
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\udb40[\udc00-\udc7f]/;

const fakes = useCliFakes({ workspacePrefix: 'mcp-rt-ws' });
const managers: McpManager[] = [];
afterAll(async () => {
  for (const m of managers) await m.close();
});

async function hostile(over: Partial<McpServerConfig> = {}, env: Record<string, string> = {}) {
  const servers: Record<string, McpServerConfig> = {
    hostile: { ...mcpServerConfigSchema.parse({ command: process.execPath, args: [SERVER], env }), ...over },
  };
  const m = new McpManager({ home: await mkdtemp(join(tmpdir(), 'agentdesk-mcp-rt-')), servers: () => servers, env: process.env, scrub: async () => ({}), clientVersion: 'test' });
  managers.push(m);
  const { tools } = await m.toolsForRun({ reserved: ['read', 'write', 'exec'], windowTokens: 200_000, builtInTokens: 1000 });
  return { m, tools, conn: m.connection('hostile')! };
}

const ctx = (onUpdate?: (t: string) => void) => ({ workspace: '/', signal: new AbortController().signal, ...(onUpdate ? { onUpdate } : {}) });

describe('a hostile MCP server', () => {
  it('names with control characters are left out; titles, descriptions, version and stderr are shown without hidden text', async () => {
    const { tools, conn } = await hostile();
    expect(tools.map((t) => t.name).sort()).toEqual(['mcp__hostile__fail', 'mcp__hostile__hang', 'mcp__hostile__huge', 'mcp__hostile__notes', 'mcp__hostile__read']);
    expect(conn.toolsLeftOut).toBe(2); // `rm_rf<ESC>[2K\rread_file` and `tab<TAB>name`
    for (const def of conn.tools!) {
      expect(def.name).not.toMatch(HIDDEN);
      expect(def.title ?? '').not.toMatch(HIDDEN);
      expect(def.description).not.toMatch(HIDDEN);
    }
    const notes = conn.tools!.find((t) => t.name === 'notes')!;
    expect(notes.title).toBe('Notes]0;pwned');
    // What the model is told is what the person sees: the smuggled tag text is gone from both.
    expect(notes.description).toMatch(/^Reads your notes\./);
    expect(tools.find((t) => t.name === 'mcp__hostile__notes')!.description).not.toMatch(HIDDEN);
    expect(conn.serverVersion).not.toMatch(HIDDEN);
    expect(conn.stderrTail.join('\n')).toContain('starting');
    expect(conn.stderrTail.join('\n')).not.toMatch(HIDDEN);
  }, 30_000);

  it('progress messages and error results reach the person without terminal controls', async () => {
    const { tools } = await hostile();
    const updates: string[] = [];
    const fail = tools.find((t) => t.name === 'mcp__hostile__fail')!;
    const err = await fail.execute({}, ctx((t) => updates.push(t))).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain('no such note');
    expect(updates.join('')).toContain('progress 1/2: half');
    expect(updates.join('')).not.toMatch(HIDDEN);
  }, 30_000);

  it('a tool named like a built-in is offered under its own prefixed name (held before)', async () => {
    const { tools } = await hostile();
    expect(tools.map((t) => t.name)).not.toContain('read');
    expect(tools.map((t) => t.name)).toContain('mcp__hostile__read');
  }, 30_000);

  it('one huge answer line (40 MB) arrives whole in seconds, without freezing the process', async () => {
    const { tools } = await hostile();
    const huge = tools.find((t) => t.name === 'mcp__hostile__huge')!;
    // The event loop's longest stall while the line arrives (reading it once is fine; re-reading it per chunk is not).
    let last = performance.now();
    let worst = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 5);
    const t = performance.now();
    try {
      const out = await huge.execute({}, ctx());
      expect(out.content.length).toBe(40 * 1024 * 1024);
    } finally {
      clearInterval(tick);
    }
    // Re-scanning the growing line per 64 KB piece kept a core busy for ~25 s (in short stalls); once: ~1.5 s.
    expect(performance.now() - t).toBeLessThan(10_000);
    expect(worst).toBeLessThan(5000);
  }, 60_000);

  it('a tool that never answers is cut off at its timeout (held before)', async () => {
    const { tools } = await hostile({ timeoutMs: 800 });
    const hang = tools.find((t) => t.name === 'mcp__hostile__hang')!;
    await expect(hang.execute({}, ctx())).rejects.toThrow(/did not answer within 0.8 s/);
  }, 30_000);
});

describe('stdio framing (LineReader)', () => {
  it('a 48 MB line in 64 KB pieces is read in linear time', () => {
    const r = new LineReader();
    const piece = Buffer.alloc(64 * 1024, 'a');
    const t = performance.now();
    for (let i = 0; i < 768; i++) expect(r.push(piece).messages).toEqual([]);
    const end = r.push(Buffer.from('\n{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    expect(end.bad).toMatch(/^a{200}$/);
    expect(end.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    // Linear: well under a second here; re-scanning the growing line per piece took tens of seconds.
    expect(performance.now() - t).toBeLessThan(5000);
  });

  it('a line over the cap is dropped as it arrives (reported once); the next message is read', () => {
    const r = new LineReader(1024);
    const first = r.push(Buffer.alloc(800, 'a'));
    const over = r.push(Buffer.alloc(800, 'b'));
    const rest = r.push(Buffer.concat([Buffer.alloc(5000, 'c'), Buffer.from('\n{"id":2}\n')]));
    expect(first.bad).toBeUndefined();
    expect(over.bad).toMatch(/over/);
    expect(rest.bad).toBeUndefined();
    expect(rest.messages).toEqual([{ id: 2 }]);
  });

  it('a message split inside a multi-byte character, CRLF endings, blank lines (held before; guards the rewrite)', () => {
    const r = new LineReader();
    const bytes = Buffer.from('{"t":"héllo ✓"}\r\n\n');
    const a = r.push(bytes.subarray(0, 8));
    const b = r.push(bytes.subarray(8));
    expect([...a.messages, ...b.messages]).toEqual([{ t: 'héllo ✓' }]);
    expect(b.bad).toBeUndefined();
  });
});

describe('a hostile MCP server seen in a terminal (the built CLI)', () => {
  it('mcp test and an agent turn print no escape sequence the server sent', async () => {
    const home = await homeWith(fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeant/claude-fake' } } } }), 'mcp-rt-home');
    const add = await runCli(['mcp', 'add', 'hostile', '--home', home, '--approval', 'auto', '--', process.execPath, SERVER], { env: cleanEnv() });
    expect(add.exitCode, add.stderr).toBe(0);
    const test = await runCli(['mcp', 'test', 'hostile', '--home', home], { env: cleanEnv(), timeoutMs: 30_000 });
    expect(test.exitCode, test.stderr).toBe(0);
    expect(test.stdout).toBe('hostile: connected (stdio, server 1.0]0;title[31m) — 5 tools: notes, read, huge, hang, fail (2 left out: control or invisible characters in their names)');
    expect(test.stdout + test.stderr).not.toMatch(HIDDEN);

    const scenario = toolLoopScenario({ toolName: 'mcp__hostile__fail', args: {}, finalText: 'It failed.' });
    fakes.anthropic.enqueue(scenario, scenario);
    const run = await runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--message', 'notes?'], { env: cleanEnv({ FAKE_ANT_KEY: 'sk-ant-cli-mcp-0000' }), timeoutMs: 60_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain('✗ mcp__hostile__fail');
    expect(run.stderr).toContain('no such note');
    expect(run.stderr).not.toMatch(HIDDEN);
  }, 90_000);
});
