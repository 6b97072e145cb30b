/** X1: the pure parts of the MCP client — names, schemas, results, config rules, approvals, budget, environment. */
import { describe, expect, it } from 'vitest';
import { assignToolNames, mcpToolName } from '../../main/mcp/names.js';
import { normalizeInputSchema } from '../../main/mcp/schema.js';
import { mapToolResult, MAX_IMAGE_BASE64, toolImages } from '../../main/mcp/result.js';
import { expandEnvRefs, mcpServerConfigSchema, mcpServerProblem, toolEnabled, transportOf } from '../../main/mcp/config.js';
import { decidePolicy } from '../../main/tools/approvals/policy.js';
import { approvalsConfigSchema } from '../../main/engine/config/schema.js';
import { planToolBudget } from '../../main/mcp/budget.js';
import { stdioServerEnv } from '../../main/mcp/env.js';
import { reconnectDelayMs } from '../../main/mcp/connection.js';
import { serverFingerprint } from '../../main/mcp/tool-cache.js';
import { validateConfig } from '../../main/engine/config/load.js';

const server = (input: Record<string, unknown>) => mcpServerConfigSchema.parse(input);

describe('tool names', () => {
  it.each([
    ['everything', 'echo', 'mcp__everything__echo'],
    ['my server', 'get.file', 'mcp__my_server__get_file'],
    ['gh', 'list-issues', 'mcp__gh__list-issues'],
    ['ü', 'ß', 'mcp______'],
  ])('%s / %s → %s', (s, t, expected) => {
    expect(mcpToolName(s, t)).toBe(expected);
  });

  it('every name fits both providers: [a-zA-Z0-9_-], at most 64 characters, long ones kept apart by a hash', () => {
    const long = 'x'.repeat(80);
    const a = mcpToolName('server', `${long}a`);
    const b = mcpToolName('server', `${long}b`);
    for (const n of [a, b, mcpToolName('s'.repeat(70), 't')]) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(a).not.toBe(b);
  });

  it('collisions (after sanitising, or with a built-in) get _2, _3 …', () => {
    expect(
      assignToolNames(
        [
          { server: 'a b', tool: 'x' },
          { server: 'a_b', tool: 'x' },
          { server: 'a.b', tool: 'x' },
        ],
        [],
      ),
    ).toEqual(['mcp__a_b__x', 'mcp__a_b__x_2', 'mcp__a_b__x_3']);
    expect(assignToolNames([{ server: 's', tool: 't' }], ['MCP__s__t'])).toEqual(['mcp__s__t_2']);
  });
});

describe('input schemas for both providers', () => {
  it.each([
    ['not an object', 'nope', { type: 'object', properties: {} }],
    ['no properties', { type: 'object' }, { type: 'object', properties: {} }],
    ['$schema dropped', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { a: { type: 'string' } } }],
    [
      'top-level anyOf folded',
      { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'number' } } }] },
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } },
    ],
    [
      'allOf keeps required',
      { allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'string' } } }] },
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'] },
    ],
    [
      'nested schemas untouched',
      { type: 'object', properties: { p: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      { type: 'object', properties: { p: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
    ],
  ])('%s', (_l, input, expected) => {
    expect(normalizeInputSchema(input)).toEqual(expected);
  });
});

describe('results into the transcript', () => {
  const info = { server: 's', tool: 't' };
  it.each([
    ['text', { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, 'a\nb'],
    ['resource link', { content: [{ type: 'resource_link', uri: 'file:///x', name: 'x', description: 'the x' }] }, '[resource link x: file:///x — the x]'],
    ['embedded text resource', { content: [{ type: 'resource', resource: { uri: 'mem://a', mimeType: 'text/plain', text: 'hello' } }] }, '[resource mem://a (text/plain)]\nhello'],
    ['embedded blob', { content: [{ type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/zip', blob: 'AAAA' } }] }, '[resource mem://b (application/zip, 3 bytes): binary content not shown]'],
    ['structured content only', { content: [], structuredContent: { t: 21 } }, '{"t":21}'],
    ['structured content already in text', { content: [{ type: 'text', text: '{"t":21}' }], structuredContent: { t: 21 } }, '{"t":21}'],
  ])('%s', (_l, result, text) => {
    expect(mapToolResult(result, info).content).toBe(text);
  });

  it('isError becomes an error result with the server text', () => {
    expect(() => mapToolResult({ isError: true, content: [{ type: 'text', text: 'no such repo' }] }, info)).toThrow('no such repo');
    expect(() => mapToolResult({ isError: true, content: [] }, info)).toThrow('t on MCP server "s" reported an error.');
  });

  it('images: sent as image data with a text line; unknown types and oversized ones only named', () => {
    const r = mapToolResult({ content: [{ type: 'text', text: 'see' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] }, info);
    expect(r.images).toEqual([{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
    expect(r.content).toBe('see\n[image image/png, 8 bytes]');
    const { images, lines } = toolImages([
      { type: 'image', mimeType: 'image/tiff', data: 'AAAA' },
      { type: 'image', mimeType: 'image/png', data: 'A'.repeat(MAX_IMAGE_BASE64 + 4) },
    ]);
    expect(images).toEqual([]);
    expect(lines[0]).toContain('a type models are not given');
    expect(lines[1]).toContain('too large');
  });
});

describe('server entries', () => {
  it.each([
    ['stdio (Claude Desktop shape)', { command: 'npx', args: ['-y', 'x'], env: { A: 'b' } }, 'stdio', undefined],
    ['remote (Cursor shape)', { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } }, 'http', undefined],
    ['typed sse', { type: 'sse', url: 'http://127.0.0.1:1/sse' }, 'sse', undefined],
    ['typed streamable-http', { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp' }, 'http', undefined],
    ['nothing', {}, 'stdio', 'missing "command" (a stdio server) or "url" (a remote server)'],
    ['both', { command: 'x', url: 'http://h/' }, 'stdio', 'has both "command" and "url": give one'],
    ['http without url', { type: 'http', command: 'x' }, 'http', 'missing "url" (a Streamable HTTP server)'],
  ])('%s', (_l, input, kind, problem) => {
    const cfg = server(input);
    expect(transportOf(cfg)).toBe(kind);
    expect(mcpServerProblem('name', cfg)).toBe(problem);
  });

  it('config.json: a bad entry is one line naming it; Cline fields are accepted', () => {
    expect(() => validateConfig({ mcpServers: { gh: { args: ['x'] } } })).toThrow('config.json: mcpServers.gh: missing "command" (a stdio server) or "url" (a remote server)');
    expect(() => validateConfig({ mcpServers: { 'bad name!': { command: 'x' } } })).toThrow('server names may use only');
    expect(() => validateConfig({ mcpServers: { gh: { command: 'x', comand: 'y' } } })).toThrow(/unknown key "comand"/);
    const c = validateConfig({ mcpServers: { gh: { command: 'x', disabled: true, alwaysAllow: ['list'] } } });
    expect(c.mcpServers.gh).toMatchObject({ disabled: true, alwaysAllow: ['list'], approval: 'ask', timeoutMs: 60_000 });
  });

  it('allow and deny lists', () => {
    expect(toolEnabled(server({ command: 'x', tools: { deny: ['a'] } }), 'a')).toBe(false);
    expect(toolEnabled(server({ command: 'x', tools: { allow: ['a'] } }), 'b')).toBe(false);
    expect(toolEnabled(server({ command: 'x', tools: { allow: ['a'], deny: ['a'] } }), 'a')).toBe(false);
    expect(toolEnabled(server({ command: 'x' }), 'z')).toBe(true);
  });

  it('${env:NAME} and ${NAME} come from the app environment; the fingerprint never holds values', () => {
    expect(expandEnvRefs('Bearer ${env:TOK} ${HOME2} ${MISSING}', { TOK: 't', HOME2: 'h' })).toBe('Bearer t h ');
    const a = server({ command: 'x', env: { TOKEN: 'one' } });
    const b = server({ command: 'x', env: { TOKEN: 'two' } });
    expect(serverFingerprint(a)).toBe(serverFingerprint(b));
    expect(serverFingerprint(a)).not.toBe(serverFingerprint(server({ command: 'y', env: { TOKEN: 'one' } })));
  });
});

describe('approvals of MCP tools', () => {
  const cfg = approvalsConfigSchema.parse({});
  it.each([
    ['ask by default', 'ask', undefined, {}, 'ask'],
    ['the server always allowed', 'auto', undefined, {}, 'allow'],
    ['the server refused', 'deny', 'auto', {}, 'deny'],
    ['--approve auto answers an ask', 'ask', 'auto', {}, 'allow'],
    ['--approve deny answers an ask', 'ask', 'deny', {}, 'deny'],
    ['an always-allowed tool under --approve deny', 'auto', 'deny', {}, 'allow'],
    ['denyTools wins', 'auto', undefined, { denyTools: ['mcp__s__t'] }, 'deny'],
    ['allowTools', 'ask', undefined, { allowTools: ['mcp__s__t'] }, 'allow'],
    ['per-tool mode', 'ask', undefined, { tools: { mcp__s__t: 'auto' } }, 'allow'],
  ] as const)('%s', (_l, own, override, extra, verdict) => {
    const c = approvalsConfigSchema.parse(extra);
    expect(decidePolicy(c, { tool: 'mcp__s__t', params: {}, sandboxed: true, ownMode: own, ...(override ? { modeOverride: override } : {}) }).verdict).toBe(verdict);
  });
  it('built-in tools are unchanged', () => {
    expect(decidePolicy(cfg, { tool: 'read', params: {}, sandboxed: true }).verdict).toBe('allow');
    expect(decidePolicy(cfg, { tool: 'write', params: {}, sandboxed: true }).verdict).toBe('ask');
  });
});

describe('tool budget', () => {
  it.each([
    ['small: nothing said', [['a', 500]], 0, 100_000, ['a'], false],
    ['over 10 %: a warning', [['a', 12_000]], 1000, 100_000, ['a'], true],
    ['over half the window: the largest server left out', [['big', 60_000], ['small', 1_000]], 2000, 100_000, ['small'], true],
  ] as const)('%s', (_l, servers, builtIn, window, kept, warns) => {
    const plan = planToolBudget(new Map(servers.map(([s, t]) => [s, t] as [string, number])), builtIn, window);
    expect(plan.kept).toEqual(kept);
    expect(plan.warning !== undefined).toBe(warns);
  });
  it('the warning says how much and what to do', () => {
    expect(planToolBudget(new Map([['a', 30_000]]), 0, 200_000).warning).toBe(
      'MCP tool definitions take about 30000 tokens, 15 % of the 200000-token context window; switch off tools you do not need (agentdesk mcp, or Settings › MCP)',
    );
  });
});

describe('the environment of a stdio server', () => {
  it('exec rules, then only what the person gave this server', () => {
    const env = stdioServerEnv(
      { env: { GITHUB_TOKEN: '${env:MY_GH}', PLAIN: 'x' }, headers: {}, args: [] },
      { PATH: '/bin', HOME: '/h', ANTHROPIC_API_KEY: 'k1', MY_GH: 'gh-secret', OTHER_TOKEN: 't', COPY: 'configured-key-value', DBUS_SESSION_BUS_ADDRESS: 'unix:x' },
      { names: [], values: ['configured-key-value'] },
      { API_SECRET: 'from-keychain' },
    );
    expect(env).toMatchObject({ PATH: '/bin', HOME: '/h', GITHUB_TOKEN: 'gh-secret', PLAIN: 'x', API_SECRET: 'from-keychain' });
    for (const gone of ['ANTHROPIC_API_KEY', 'OTHER_TOKEN', 'COPY', 'DBUS_SESSION_BUS_ADDRESS', 'MY_GH']) expect(env).not.toHaveProperty(gone);
  });
});

it('reconnect backoff: 0.5 s doubling, at most 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 8].map(reconnectDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
});
