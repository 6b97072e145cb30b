/**
 * exec under bubblewrap (T2): confinement of files, environment and processes. Runs where bwrap works (CI
 * installs it); the same checks against the no-sandbox fallback show what the sandbox adds.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecTool } from '../../main/tools/exec.js';
import { createProcessTool, ProcessTable } from '../../main/tools/processes.js';
import { detectSandbox } from '../../main/tools/sandbox/index.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';

const status = await detectSandbox();
const hasBwrap = status.kind === 'bwrap';

let root = '';
let ws = '';
let appHome = '';
let decoy: ChildProcess | undefined;
const DECOY = `sekrit-decoy-${process.pid}`;
const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({ workspace: ws, signal: new AbortController().signal, ...extra });

/** Host processes whose command line contains `marker` (excluding pgrep itself). */
function hostProcesses(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' }).split('\n').filter((l) => l && !l.includes('pgrep'));
  } catch {
    return [];
  }
}

async function gone(marker: string, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (hostProcesses(marker).length === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return hostProcesses(marker).length === 0;
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-sbx-')));
  ws = path.join(root, 'ws');
  await mkdir(ws);
  await writeFile(path.join(root, 'outside.txt'), 'OUTSIDE-SECRET');
  // The app's data folder outside /tmp (so only the hide rule, not the private /tmp, keeps it from view).
  appHome = await mkdtemp('/var/tmp/agentdesk-apphome-');
  await writeFile(path.join(appHome, 'config.json'), 'APPHOME-SECRET');
  // A host process with a key in its environment: /proc/<pid>/environ must not show it inside the sandbox.
  decoy = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, DECOY_API_KEY: DECOY }, stdio: 'ignore' });
});

afterAll(async () => {
  decoy?.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
  await rm(appHome, { recursive: true, force: true });
});

const SANDBOX = () => ({ enabled: true, network: true, hide: [appHome] });

describe.runIf(hasBwrap)('exec under bubblewrap', () => {
  const exec = () => createExecTool({ killGraceMs: 300, sandbox: SANDBOX() });

  it('runs in the workspace, can write there, and says it is sandboxed', async () => {
    const out = await exec().execute({ command: 'pwd; echo made > made.txt; cat made.txt' }, ctx());
    expect(out.content).toBe(`${ws}\nmade\n\nexit code 0`);
    expect(out.details).toMatchObject({ sandbox: 'bwrap' });
  });

  it.each([
    ['a file next to the workspace', () => `cat ${path.join(root, 'outside.txt')}`],
    ["the app's data folder", () => `cat ${path.join(appHome, 'config.json')}`],
    ['the home folder', () => `ls -A ${homedir()} | head -1 | grep . && cat ${homedir()}/$(ls -A ${homedir()} | head -1)`],
  ])('cannot read %s', async (_l, cmd) => {
    const out = await exec().execute({ command: cmd() }, ctx());
    expect(out.content).not.toMatch(/OUTSIDE-SECRET|APPHOME-SECRET/);
    expect(out.content).toMatch(/exit code [12]$/);
  });

  it('cannot write outside the workspace; /tmp is private', async () => {
    const probe = `agentdesk-probe-${process.pid}`;
    const out = await exec().execute({
      command: `touch /etc/${probe}; touch /var/tmp/${probe}; touch ${appHome}/${probe}; echo x > /tmp/${probe} && echo tmp-ok`,
    }, ctx());
    expect(out.content).toMatch(/Read-only file system/);
    expect(out.content).toContain('tmp-ok');
    for (const p of [`/etc/${probe}`, `/var/tmp/${probe}`, path.join(appHome, probe), `/tmp/${probe}`]) expect(existsSync(p)).toBe(false);
    expect(await readdir(appHome)).toEqual(['config.json']);
  });

  it('shows no key of the parent in env or /proc/*/environ', async () => {
    const env = { ...process.env, FOO_API_KEY: 'sk-parent-sekrit', MY_LLM: 'configured-sekrit-value' };
    const tool = createExecTool({ sandbox: SANDBOX(), env, secrets: () => ({ names: ['MY_LLM'], values: [] }) });
    const out = await tool.execute({ command: 'env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; ls /proc | grep -c "^[0-9]"' }, ctx());
    expect(out.content).not.toMatch(/sk-parent-sekrit|configured-sekrit-value/);
    expect(out.content).not.toContain(DECOY);
    // Only the sandbox's own few processes are visible.
    expect(Number(/(\d+)\n\nexit code 0$/.exec(out.content)?.[1])).toBeLessThan(6);
  });

  it('the fallback without a sandbox does show the host process environ (what the sandbox prevents)', async () => {
    const tool = createExecTool({ sandbox: { enabled: false, network: true, hide: [] } });
    const out = await tool.execute({ command: `cat /proc/${decoy!.pid}/environ | tr "\\0" "\\n"` }, ctx());
    expect(out.content).toContain(DECOY);
  });

  it('timeout kills a setsid double-forked child', async () => {
    const marker = '987.0101';
    const run = exec().execute({ command: `setsid bash -c "sleep ${marker} &"; sleep 30`, timeoutSeconds: 0.5 }, ctx());
    await expect(run).rejects.toThrow(/killed: timed out after 0\.5s$/);
    expect(await gone(marker)).toBe(true);
  });

  it('abort kills a setsid double-forked child', async () => {
    const marker = '987.0202';
    const controller = new AbortController();
    const run = exec().execute({ command: `setsid bash -c "sleep ${marker} &"; echo up; sleep 30` }, ctx({ signal: controller.signal }));
    const until = Date.now() + 10_000;
    while (hostProcesses(marker).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    expect(hostProcesses(marker).length).toBeGreaterThan(0);
    controller.abort();
    await expect(run).rejects.toThrow(ToolError);
    expect(await gone(marker)).toBe(true);
  });

  it('a background child left by a finished command dies with it', async () => {
    const marker = '987.0303';
    const out = await exec().execute({ command: `setsid bash -c "sleep ${marker} &" ; (sleep ${marker} &) ; echo done` }, ctx());
    expect(out.content).toMatch(/^done/);
    expect(await gone(marker)).toBe(true);
  });

  it('caps the output', async () => {
    const tool = createExecTool({ sandbox: SANDBOX(), capChars: 1000 });
    const out = await tool.execute({ command: 'yes abcdefghij | head -c 200000' }, ctx());
    expect(out.content.length).toBeLessThan(1100);
    expect(out.content).toMatch(/\[… \d+ chars omitted …\]/);
    expect(out.details).toMatchObject({ truncated: true, outputChars: 200000 });
  });

  it('network off leaves only the loopback interface', async () => {
    const tool = createExecTool({ sandbox: { ...SANDBOX(), network: false } });
    const out = await tool.execute({ command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" }, ctx());
    expect(out.content).toBe('lo\n\nexit code 0');
  });

  it('background commands: a handle, output, kill — visible to their own run only', async () => {
    const table = new ProcessTable();
    const tool = createExecTool({ sandbox: SANDBOX(), processes: table });
    const proc = createProcessTool(table);
    const mine = ctx({ run: { runId: 'run-a', sessionKey: 's' } });
    const started = await tool.execute({ command: 'echo hello-bg; sleep 987.0404', background: true }, mine);
    expect(started.content).toMatch(/^Started in the background as p1 \(sandboxed\)/);
    await expect.poll(async () => (await proc.execute({ action: 'output', id: 'p1' }, mine)).content, { timeout: 10_000 }).toBe('p1: running\nhello-bg\n');
    expect((await proc.execute({ action: 'list' }, mine)).content).toBe('p1  running  echo hello-bg; sleep 987.0404');
    expect((await proc.execute({ action: 'list' }, ctx({ run: { runId: 'run-b', sessionKey: 's' } }))).content).toBe('No background processes in this run.');
    await expect(proc.execute({ action: 'kill', id: 'p1' }, ctx({ run: { runId: 'run-b', sessionKey: 's' } }))).rejects.toThrow(/^process: no background process "p1" in this run$/);
    expect((await proc.execute({ action: 'kill', id: 'p1' }, mine)).content).toMatch(/^p1: killed\n/);
    expect(await gone('987.0404')).toBe(true);
  });

  it('a kill right after the start (bwrap still setting up) leaves nothing behind', async () => {
    const table = new ProcessTable();
    const tool = createExecTool({ sandbox: SANDBOX(), processes: table });
    for (const n of [1, 2, 3]) {
      await tool.execute({ command: `sleep 987.06${n}`, background: true }, ctx({ run: { runId: 'run-d', sessionKey: 's' } }));
      table.endRun('run-d');
    }
    for (const n of [1, 2, 3]) expect(await gone(`987.06${n}`)).toBe(true);
  });

  it('ending the run kills its background commands', async () => {
    const table = new ProcessTable();
    const tool = createExecTool({ sandbox: SANDBOX(), processes: table });
    await tool.execute({ command: 'sleep 987.0505', background: true }, ctx({ run: { runId: 'run-c', sessionKey: 's' } }));
    await expect.poll(() => hostProcesses('987.0505').length, { timeout: 10_000 }).toBeGreaterThan(0);
    table.endRun('run-c');
    expect(await gone('987.0505')).toBe(true);
  });
});

describe('sandbox detection', () => {
  it('reports bwrap on Linux where it is installed, or says why not', () => {
    if (process.platform === 'linux' && existsSync('/usr/bin/bwrap')) expect(status).toEqual({ kind: 'bwrap' });
    else expect(status.kind === 'none' ? status.reason : 'ok').toBeTruthy();
  });
});
