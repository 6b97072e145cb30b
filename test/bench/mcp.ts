/**
 * `npm run bench` rows for MCP (X1), measured in the same run as the rest:
 * 1. A CLI turn with one configured-but-unused stdio server (its tool list cached from an earlier turn, so it is not
 *    started) vs the same turn with none: wall time, median of per-round ratios, order rotating. Goal ≤ 1.05×.
 * 2. A turn whose model calls an MCP tool (`mcp__everything__echo`, the server started by that call) vs the same
 *    tool loop calling the built-in `list`, less the server's own time for the same work (test/bench/bare-mcp.mjs:
 *    spawn, initialize, tools/list, tools/call, close through the SDK alone). Goal: ≤ 60 ms added.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { rm, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';

type Timed = { wallS: number; rssKb: number };
interface Row {
  what: string;
  ours: string;
  yardstick: string;
  ratio: number;
  goal: string;
  ok: boolean;
}

export interface McpBenchDeps {
  root: string;
  runs: number;
  median: (xs: number[]) => number;
  startServer: (args: string[]) => Promise<{ baseUrl: string; child: ChildProcess }>;
  timeV: (cmd: string, args: string[], env: NodeJS.ProcessEnv) => Promise<Timed>;
  benchHome: (baseUrl: string, agent?: Record<string, unknown>) => Promise<string>;
  /** A workspace folder outside every home. */
  workspace: string;
  /** The fake server of the plain CLI turn (a text reply). */
  turnBaseUrl: string;
}

async function withServers(home: string, servers: Record<string, unknown>): Promise<void> {
  const file = join(home, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, JSON.stringify({ ...config, mcpServers: servers }));
}

export async function mcpRows(d: McpBenchDeps): Promise<Row[]> {
  const server = join(d.root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const everything = { everything: { command: process.execPath, args: [server, 'stdio'], approval: 'auto' } };
  const env = { ...process.env, ANTHROPIC_API_KEY: '', BENCH_KEY: 'sk-ant-bench' };
  const cli = (home: string): [string, string[]] => [
    'node',
    [join(d.root, 'bin/agentdesk.mjs'), 'agent', '--home', home, '--workspace', d.workspace, '--model', 'fake/bench', '--message', 'bench'],
  ];
  const [mcpLoop, listLoop] = await Promise.all([
    d.startServer(['--scenario', 'tool-loop', '--tool', 'mcp__everything__echo', '--args', '{"message":"bench"}', '--final', 'Done.']),
    d.startServer(['--scenario', 'tool-loop', '--tool', 'list', '--args', '{}', '--final', 'Done.']),
  ]);
  const homes: string[] = [];
  try {
    // 1. configured but unused
    const none = await d.benchHome(d.turnBaseUrl, {});
    const unused = await d.benchHome(d.turnBaseUrl, {});
    await withServers(unused, everything);
    homes.push(none, unused);
    const a = { none: cli(none), unused: cli(unused) };
    for (const k of ['none', 'unused'] as const) await d.timeV(...a[k], env); // warm-up: the first turn lists the server's tools once
    const idle: Record<'none' | 'unused', Timed>[] = [];
    for (let i = 0; i < d.runs; i++) {
      const order = i % 2 === 0 ? (['none', 'unused'] as const) : (['unused', 'none'] as const);
      const set = {} as Record<'none' | 'unused', Timed>;
      for (const k of order) set[k] = await d.timeV(...a[k], env);
      idle.push(set);
    }
    const idleRatio = d.median(idle.map((s) => s.unused.wallS / s.none.wallS));
    const med = (xs: number[]) => d.median(xs);

    // 2. a turn that calls an MCP tool
    const withMcp = await d.benchHome(mcpLoop.baseUrl, {});
    const withList = await d.benchHome(listLoop.baseUrl, {});
    await withServers(withMcp, everything);
    homes.push(withMcp, withList);
    const b = { mcp: cli(withMcp), list: cli(withList) };
    for (const k of ['mcp', 'list'] as const) await d.timeV(...b[k], env);
    const bare = () => Number(execFileSync(process.execPath, [join(d.root, 'test/bench/bare-mcp.mjs'), server], { cwd: d.root, encoding: 'utf8' }).trim());
    bare();
    const calls: { mcp: number; list: number; own: number }[] = [];
    for (let i = 0; i < d.runs; i++) {
      const set = { mcp: 0, list: 0, own: 0 };
      const steps = [() => d.timeV(...b.mcp, env).then((t) => (set.mcp = t.wallS * 1000)), () => d.timeV(...b.list, env).then((t) => (set.list = t.wallS * 1000)), async () => void (set.own = bare())];
      for (let j = 0; j < steps.length; j++) await steps[(i + j) % steps.length]!();
      calls.push(set);
    }
    const added = med(calls.map((c) => c.mcp - c.list - c.own));
    const s = (x: number) => `${x.toFixed(3)} s`;
    return [
      {
        what: `CLI turn, one configured-but-unused stdio MCP server (${d.runs} runs each)`,
        ours: s(med(idle.map((x) => x.unused.wallS))),
        yardstick: `no MCP server ${s(med(idle.map((x) => x.none.wallS)))}`,
        ratio: idleRatio,
        goal: '≤ 1.05×',
        ok: idleRatio <= 1.05,
      },
      {
        what: `CLI turn calling an MCP tool, added over the server's own time (${d.runs} runs each)`,
        ours: `${added >= 0 ? '+' : '−'}${Math.abs(added).toFixed(0)} ms (turn ${med(calls.map((c) => c.mcp)).toFixed(0)} ms)`,
        yardstick: `same loop with list ${med(calls.map((c) => c.list)).toFixed(0)} ms; server's own ${med(calls.map((c) => c.own)).toFixed(0)} ms`,
        ratio: added / 60,
        goal: '≤ 60 ms',
        ok: added <= 60,
      },
    ];
  } finally {
    mcpLoop.child.kill();
    listLoop.child.kill();
    for (const h of homes) await rm(h, { recursive: true, force: true });
  }
}
