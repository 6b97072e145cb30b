/**
 * The CLI and sessions: a run without --session starts its own session and names it on stderr; --session continues
 * one. Bad input (folders, numbers, keys, settings) gets exit 2 and one line naming the problem — never a raw errno,
 * a stack trace or a hang.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, tempDir } from '../support/cli.js';

let workspace: string;

beforeAll(async () => {
  await ensureBuilt();
  workspace = await tempDir('ws');
}, 120_000);

const SESSION_LINE = /^agentdesk: session (\S+)/m;

describe('which session a CLI run uses', () => {
  // Decided default: a CLI run without --session is its own new session (never one ever-growing "main").
  it('without --session every run is a new session; --session continues one', async () => {
    const home = await tempDir('home');
    const base = ['agent', '--json', '--model', 'demo/agent', '--home', home, '--workspace', workspace];
    const a = await runCli([...base, '--message', 'first']);
    const b = await runCli([...base, '--message', 'second']);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    const keyA = SESSION_LINE.exec(a.stderr)![1]!;
    const keyB = SESSION_LINE.exec(b.stderr)![1]!;
    expect(keyA).toMatch(/^cli-/);
    expect(keyB).not.toBe(keyA);
    const c = await runCli([...base, '--session', keyA, '--message', 'third']);
    expect(c.exitCode).toBe(0);
    expect(c.stderr).toBe(''); // --json with a known --session: stderr stays quiet
    const e = await runCli(['agent', '--model', 'demo/agent', '--home', home, '--workspace', workspace, '--session', keyA, '--message', 'fourth']);
    expect(e.exitCode).toBe(0);
    expect(e.stderr.split('\n')[0]).toBe(`agentdesk: session ${keyA}`);
    const d = await runCli(['agent', '--help']);
    expect(d.stdout).toContain('--session KEY');
  }, 90_000);
});

const rootUser = process.getuid?.() === 0;

describe('bad input: exit 2, one line naming the problem', () => {
  it.each([
    ['--home is a file', async (dir: string) => { await writeFile(join(dir, 'f'), 'x'); return ['--home', join(dir, 'f')]; }, /--home \S+ is a file, not a folder/],
    ['--home below a file', async (dir: string) => { await writeFile(join(dir, 'f'), 'x'); return ['--home', join(dir, 'f', 'sub')]; }, /is a file, not a folder/],
    ['--home under /proc', async () => ['--home', '/proc/agentdesk-home'], /--home \/proc\/agentdesk-home: proc\/ is a system folder/],
    ['--home /sys', async () => ['--home', '/sys/kernel/agentdesk'], /system folder/],
    ['--timeout 1e12', async () => ['--timeout', '1e12'], /--timeout is too long: at most 604800 seconds/],
    ['--timeout -1', async () => ['--timeout', '-1'], /--timeout must be a positive number of seconds \(got "-1"\)/],
    ['--timeout 0', async () => ['--timeout', '0'], /--timeout must be a positive number/],
    ['--timeout abc', async () => ['--timeout', 'abc'], /--timeout must be a positive number/],
    ['--session too long', async () => ['--session', 'k'.repeat(201)], /--session is too long: at most 200 characters, got 201/],
    ['--session with a newline', async () => ['--session', 'a\nb'], /control characters/],
    ['settings.json malformed', async (dir: string) => { await mkdir(join(dir, 'h')); await writeFile(join(dir, 'h', 'settings.json'), '{"defaults": '); return ['--home', join(dir, 'h')]; }, /^agentdesk: settings\.json is not valid JSON/],
    ['settings.json with a bad value', async (dir: string) => { await mkdir(join(dir, 'h')); await writeFile(join(dir, 'h', 'settings.json'), '{"defaults": {"timeoutSeconds": -5}}'); return ['--home', join(dir, 'h')]; }, /^agentdesk: settings\.json: defaults\.timeoutSeconds/],
  ])('%s', async (_name, setup, pattern) => {
    const dir = await tempDir('bad');
    const extra = await setup(dir);
    const home = extra.includes('--home') ? [] : ['--home', join(dir, 'home')];
    const r = await runCli(['agent', '--model', 'demo/agent', '--workspace', workspace, '--message', 'hi', ...home, ...extra], { timeoutMs: 15_000 });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).not.toMatch(/E[A-Z]{3,}:|\n\s+at /);
  });

  // Root ignores folder permissions: there the CLI runs as root WITHOUT the capabilities that bypass them
  // (setpriv, util-linux). Not as "nobody": that user may not be able to read the repository itself (a clone in a
  // private 0700 folder), and the test would then fail for the wrong reason.
  it('an unwritable --home', async () => {
    const dir = await tempDir('ro');
    const ro = join(dir, 'ro');
    await mkdir(ro, { mode: 0o555 });
    await chmod(ro, 0o555);
    for (const home of [ro, join(ro, 'sub')]) {
      const args = ['agent', '--model', 'demo/agent', '--workspace', workspace, '--message', 'hi', '--home', home];
      const r = rootUser
        ? await runCli(args, { wrap: ['setpriv', '--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search', '--'] })
        : await runCli(args);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--home \S+ (is not writable|cannot be created): permission denied$/);
    }
  });

  it('AGENTDESK_HOME pointing at a file is named as such', async () => {
    const dir = await tempDir('envhome');
    await writeFile(join(dir, 'f'), 'x');
    const r = await runCli(['auth', 'list'], { env: { ...process.env, AGENTDESK_HOME: join(dir, 'f') } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^agentdesk: AGENTDESK_HOME \S+ is a file, not a folder$/);
  });
});
