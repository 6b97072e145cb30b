import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExecTool, formatSeconds } from '../../main/tools/exec.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';

let ws = '';
const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({
  workspace: ws,
  signal: new AbortController().signal,
  ...extra,
});
/** These tests cover the no-sandbox fallback (host process tree); tools-exec-sandbox.test.ts runs under bwrap. */
const NO_SANDBOX = { enabled: false, network: true, hide: [] };
const exec = createExecTool({ killGraceMs: 300, sandbox: NO_SANDBOX });

/** Alive and not a zombie (pid 1 here may not reap orphans). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitDead(pid: number, ms = 1500): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !isAlive(pid);
}

async function failure(run: Promise<unknown>): Promise<Error> {
  try {
    await run;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the tool to fail');
}

beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-exec-')));
});
afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
});

describe('exec: results', () => {
  it('returns interleaved output and a non-zero exit code without throwing', async () => {
    const out = await exec.execute({ command: 'echo out; echo err >&2; exit 3' }, ctx());
    expect(out.content).toBe('out\nerr\n\nexit code 3');
    expect(out.details).toMatchObject({ exitCode: 3, truncated: false });
  });

  it('runs in the workspace with bash', async () => {
    const out = await exec.execute({ command: 'pwd; echo "${BASH_VERSION:+bash}"' }, ctx());
    expect(out.content).toBe(`${ws}\nbash\n\nexit code 0`);
  });

  it('reports a missing command through its exit code', async () => {
    const out = await exec.execute({ command: 'no-such-command-xyz' }, ctx());
    expect(out.content).toMatch(/no-such-command-xyz: command not found\n\nexit code 127$/);
  });

  it('says when there is no output, with stdin closed', async () => {
    const out = await exec.execute({ command: 'cat' }, ctx());
    expect(out.content).toBe('(no output)\n\nexit code 0');
  });

  it('caps output keeping head and tail', async () => {
    const capped = createExecTool({ capChars: 100, sandbox: NO_SANDBOX });
    const full = Array.from({ length: 10000 }, (_, i) => `${i + 1}\n`).join('');
    const out = await capped.execute({ command: 'seq 1 10000' }, ctx());
    const expected = `${full.slice(0, 50)}\n[… ${full.length - 100} chars omitted …]\n${full.slice(-50, -1)}\n\nexit code 0`;
    expect(out.content).toBe(expected);
    expect(out.details).toMatchObject({ truncated: true, outputChars: full.length });
  });

  it('streams partial output to onUpdate as it arrives', async () => {
    // The first update is 'one' alone, and it comes while the command still sleeps its 0.3 s — well before the run
    // ends, not held back until the exit. Timed from that update, not from the start: a fixed 200 ms after the
    // start was sometimes over before a busy machine had even started the shell.
    const updates: string[] = [];
    let firstAt = 0;
    const onUpdate = (p: string): void => {
      if (updates.length === 0) firstAt = Date.now();
      updates.push(p);
    };
    await exec.execute({ command: 'echo one; sleep 0.3; echo two' }, ctx({ onUpdate }));
    expect(updates[0]).toBe('one\n');
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(150);
    expect(updates.join('')).toBe('one\ntwo\n');
  });

  it('does not wait for a background process that keeps the output open', async () => {
    const started = Date.now();
    const out = await exec.execute({ command: 'echo start; (sleep 5; echo late) &' }, ctx());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(out.content).toBe(
      'start\n[output after the shell exited was not captured: a background process still holds it]\n\nexit code 0',
    );
    process.kill(-(out.details?.pid as number), 'SIGKILL');
  });
});

describe('exec: environment', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of [...Object.keys(planted), 'MY_VISIBLE']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  const planted: Record<string, string> = {
    FOO_API_KEY: 'sk-sekrit-1',
    GH_TOKEN: 'ghp_sekrit-2',
    GH_PAT: 'sekrit-3',
    NPM_AUTH: 'sekrit-4',
    BASIC_AUTH_USER: 'sekrit-5',
    OPENAI_BASE_URL: 'http://x',
    ANTHROPIC_MODEL: 'm',
    AGENTDESK_HOME: '/app/data',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/0/bus',
    GNOME_KEYRING_CONTROL: '/run/user/0/keyring',
    SSH_AUTH_SOCK: '/tmp/ssh-agent',
    MY_LLM: 'sekrit-6-configured-by-apiKeyEnv',
    INNOCENT_LOOKING: 'sekrit-7-equals-a-configured-key',
  };

  it('drops secrets, keychain access, configured key names and key values, keeps the rest', async () => {
    Object.assign(process.env, planted, { MY_VISIBLE: 'yes' });
    const tool = createExecTool({
      sandbox: NO_SANDBOX,
      secrets: () => ({ names: ['MY_LLM'], values: ['sekrit-7-equals-a-configured-key'] }),
    });
    const out = await tool.execute({ command: 'env' }, ctx());
    const names = out.content.split('\n').map((l) => l.split('=')[0]);
    expect(names).toEqual(expect.arrayContaining(['MY_VISIBLE', 'PATH', 'HOME', 'PAGER']));
    for (const gone of Object.keys(planted)) expect(names).not.toContain(gone);
    expect(out.content).not.toContain('sekrit');
  });
});

describe('exec: timeout and abort kill the whole tree', () => {
  it('kills a command and its background child on timeout', async () => {
    const started = Date.now();
    const err = await failure(exec.execute({ command: 'sleep 30 & echo CHILD=$!; sleep 30', timeoutSeconds: 0.5 }, ctx()));
    expect(err).toBeInstanceOf(ToolError);
    expect(err.message).toMatch(/^CHILD=\d+\n\nkilled: timed out after 0\.5s$/);
    expect(Date.now() - started).toBeLessThan(2500);
    const child = Number(/CHILD=(\d+)/.exec(err.message)?.[1]);
    expect(await waitDead(child)).toBe(true);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const started = Date.now();
    const err = await failure(
      exec.execute({ command: "trap '' TERM; sleep 30 & echo CHILD=$!; sleep 30", timeoutSeconds: 0.3 }, ctx()),
    );
    expect(err.message).toMatch(/killed: timed out after 0\.3s$/);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await waitDead(Number(/CHILD=(\d+)/.exec(err.message)?.[1]))).toBe(true);
  });

  it('kills the command when the signal aborts', async () => {
    // Aborted once the command's first output has arrived (a fixed 200 ms lost the race on a busy machine: the
    // shell had not printed yet, or not even started), and timed from the abort, not from the start.
    const controller = new AbortController();
    let aborted = 0;
    const onUpdate = (text: string): void => {
      if (!aborted && text.includes('begun')) {
        aborted = Date.now();
        controller.abort();
      }
    };
    const run = exec.execute({ command: 'echo begun; sleep 30' }, ctx({ signal: controller.signal, onUpdate }));
    const err = await failure(run);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.message).toBe('begun\n\nkilled: aborted');
    expect(aborted).toBeGreaterThan(0);
    expect(Date.now() - aborted).toBeLessThan(2000);
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(exec.execute({ command: 'echo hi' }, ctx({ signal: controller.signal }))).rejects.toThrow(
      /^exec: aborted before the command started$/,
    );
  });

  it('uses the default timeout from the options', async () => {
    const quick = createExecTool({ timeoutMs: 300, killGraceMs: 100, sandbox: NO_SANDBOX });
    await expect(quick.execute({ command: 'sleep 30' }, ctx())).rejects.toThrow(/^\(no output\)\n\nkilled: timed out after 0\.3s$/);
  });
});

describe('exec: arguments', () => {
  it.each([
    [{}, /^exec: `command` is required$/],
    [{ command: '  ' }, /^exec: `command` must not be empty$/],
    [{ command: 1 }, /^exec: `command` must be a string$/],
    [{ command: 'ls', timeoutSeconds: 0 }, /^exec: `timeoutSeconds` must be a positive number$/],
    [{ command: 'ls', timeoutSeconds: '5' }, /^exec: `timeoutSeconds` must be a positive number$/],
    [{ command: 'ls', cwd: '/' }, /^exec: `cwd` cannot be set: commands always run in the workspace folder; use `cd sub && …` inside the command$/],
    [{ command: 'ls', workdir: '.' }, /^exec: `workdir` cannot be set/],
    [{ command: 'ls', shell: 'zsh' }, /^exec: unknown argument `shell` \(allowed: command, timeoutSeconds, background\)$/],
  ])('refuses %j', async (args, message) => {
    await expect(exec.execute(args, ctx())).rejects.toThrow(message);
  });

  it.each([
    [2000, '2s'],
    [500, '0.5s'],
    [120000, '120s'],
    [1234, '1.234s'],
  ])('formatSeconds(%i) = %s', (ms, text) => {
    expect(formatSeconds(ms)).toBe(text);
  });
});
