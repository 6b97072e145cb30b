/**
 * X1 lifecycle, in process against the real reference server (stdio): one client per server shared by the runs of a
 * gateway (a second run does not start a second server), a server that dies is reconnected with backoff, a tool list
 * already known is offered without starting the server, and close() leaves no process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpServerConfigSchema, type McpServerConfig } from '../../main/mcp/config.js';
import { McpManager } from '../../main/mcp/manager.js';

const SERVER = join(import.meta.dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const alive = (pid: number | undefined): boolean => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The reference server's processes this test process started (Linux /proc: children whose command line names it; a
 * dead one not yet reaped has none). What a person would look for in `ps`.
 */
function serverPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(SERVER) ? [Number(d)] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

async function manager(home?: string) {
  const servers: Record<string, McpServerConfig> = { everything: mcpServerConfigSchema.parse({ command: process.execPath, args: [SERVER, 'stdio'] }) };
  const m = new McpManager({ home: home ?? (await mkdtemp(join(tmpdir(), 'agentdesk-mcp-life-'))), servers: () => servers, env: process.env, scrub: async () => ({}), clientVersion: 'test' });
  return m;
}

const opts = { reserved: ['read'], windowTokens: 200_000, builtInTokens: 1000 };

describe('MCP server lifecycle', () => {
  it('one server for every run; a killed server is reconnected with backoff; close() ends it', async () => {
    const m = await manager();
    try {
      const first = await m.toolsForRun(opts);
      expect(first.tools.map((t) => t.name)).toContain('mcp__everything__echo');
      const conn = m.connection('everything')!;
      const started = serverPids();
      expect(started).toHaveLength(1);
      const pid = started[0]!;
      expect(alive(pid)).toBe(true);
      await m.toolsForRun(opts); // a second run: the same client, the same server
      expect(m.connection('everything')).toBe(conn);
      expect(serverPids()).toEqual([pid]);

      process.kill(pid!, 'SIGKILL');
      expect(await until(() => conn.state !== 'connected', 5000)).toBe(true);
      expect(conn.error).toMatch(/the server exited.*reconnecting/);
      expect(await until(() => conn.state === 'connected', 10_000)).toBe(true);
      const restarted = serverPids();
      expect(restarted).toHaveLength(1);
      expect(restarted[0]).not.toBe(pid);
      const echo = first.tools.find((t) => t.name === 'mcp__everything__echo')!;
      const out = await echo.execute({ message: 'after a restart' }, { workspace: '/', signal: new AbortController().signal });
      expect(out.content).toBe('Echo: after a restart');

      const last = restarted[0];
      await m.close();
      expect(await until(() => !alive(last), 5000)).toBe(true);
      expect(serverPids()).toEqual([]);
    } finally {
      await m.close();
    }
  }, 60_000);

  it('a known tool list is offered without starting the server; the first call starts it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'agentdesk-mcp-life-'));
    const warm = await manager(home);
    await warm.toolsForRun(opts);
    await warm.close();
    const lazy = await manager(home);
    try {
      const { tools } = await lazy.toolsForRun(opts);
      const conn = lazy.connection('everything')!;
      expect(conn.state).toBe('idle');
      expect(await until(() => serverPids().length === 0, 5000)).toBe(true); // (the warm one's is gone, no new one)
      const echo = tools.find((t) => t.name === 'mcp__everything__echo')!;
      expect(echo.mutating).toBe(false); // the server's readOnlyHint: no checkpoint before it (X2)
      expect((await echo.execute({ message: 'lazy' }, { workspace: '/', signal: new AbortController().signal })).content).toBe('Echo: lazy');
      expect(conn.state).toBe('connected');
    } finally {
      await lazy.close();
    }
  }, 60_000);

  it('aborting a call (Stop) cancels it at once with an error result and notifications/cancelled to the server', async () => {
    // The server's stdin goes through `tee` into a file: what the client sent, as the server received it.
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-mcp-life-'));
    const log = join(dir, 'stdin.jsonl');
    const servers: Record<string, McpServerConfig> = {
      everything: mcpServerConfigSchema.parse({ command: 'sh', args: ['-c', `tee "${log}" | "${process.execPath}" "${SERVER}" stdio`] }),
    };
    const m = new McpManager({ home: dir, servers: () => servers, env: process.env, scrub: async () => ({}), clientVersion: 'test' });
    try {
      const { tools } = await m.toolsForRun(opts);
      const slow = tools.find((t) => t.name === 'mcp__everything__trigger-long-running-operation')!;
      const ctrl = new AbortController();
      const started = Date.now();
      const pending = slow.execute({ duration: 30, steps: 1 }, { workspace: '/', signal: ctrl.signal });
      setTimeout(() => ctrl.abort(new Error('stopped')), 300);
      await expect(pending).rejects.toThrow(/was cancelled: the run was stopped/);
      expect(Date.now() - started).toBeLessThan(5000);
      // The connection stays usable.
      const echo = tools.find((t) => t.name === 'mcp__everything__echo')!;
      expect((await echo.execute({ message: 'still here' }, { workspace: '/', signal: new AbortController().signal })).content).toBe('Echo: still here');
      const sent = (await readFile(log, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; method?: string; params?: Record<string, unknown> });
      const call = sent.find((x) => x.method === 'tools/call' && (x.params as { name?: string }).name === 'trigger-long-running-operation')!;
      expect(sent.find((x) => x.method === 'notifications/cancelled')?.params).toMatchObject({ requestId: call.id });
    } finally {
      await m.close();
    }
  }, 60_000);
});
