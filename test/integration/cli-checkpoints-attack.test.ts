/**
 * X2 attacked through the built CLI (an attacker's review, beside test/unit/checkpoints-redteam.test.ts): what
 * `agentdesk checkpoints list | restore | undo` prints when a label (the first line of a user message — a prompt
 * injection can get a person to send one) holds terminal escape sequences: never the raw control characters, and
 * the JSON stays valid and exact; a file name with a new line in it (named by a restore) does not add a line.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { mkfifoSync } from '../support/mkfifo.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'cpa-unused' });
const KEY = { FAKE_ANT_KEY: 'sk-ant-test-key-1717' };
const cli = (home: string, args: string[]) => runCli([...args, '--home', home], { env: cleanEnv(KEY), timeoutMs: 60_000 });
/** C0 (but \t and \n), DEL and C1 controls, bidi overrides: what must never reach a terminal raw. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('checkpoints output and hostile labels', () => {
  it('a label with ESC/OSC sequences, a carriage return, C1 CSI and a bidi override is printed escaped; --json keeps it exact', async () => {
    const home = await homeWith(fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeant/claude-fake' } } } }), 'cpa-home');
    const ws = await tempDir('cpa-ws');
    writeFileSync(join(ws, 'a.txt'), 'original\n');
    // A name with a new line and an escape in it (the agent can make one): named in the restore's line below.
    const name = 'notes\nRestored everything. \x1b[2K.txt';
    writeFileSync(join(ws, name), 'then\n');
    // Not recorded (a FIFO): `list` names it, escaped like any name.
    mkfifoSync(join(ws, 'pipe\x1b[8m'));
    // Clears the screen, sets the window title (OSC 0), hides the rest (SGR 8), overwrites the line (\r) and
    // reorders what follows (U+202E); U+009B is a one-byte CSI to some terminals.
    const label = 'fix it\x1b[2J\x1b]0;owned\x07\x1b[8m hidden\rrm -rf ~ \u202eevil\u009b31m';
    fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'changed\n' } }] }, { text: 'Done.' });
    const t = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--session', 'esc', '--approve', 'auto', '--message', `${label}\nsecond line`], { env: cleanEnv(KEY), timeoutMs: 60_000 });
    expect(t.exitCode, t.stderr).toBe(0);

    const json = await cli(home, ['checkpoints', 'list', '--session', 'esc', '--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    const items = JSON.parse(json.stdout) as { id: string; label: string }[];
    expect(items.map((i) => i.label)).toEqual([label]);

    const list = await cli(home, ['checkpoints', 'list', '--session', 'esc']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(RAW_CONTROL);
    expect(list.stdout).toContain('fix it\\x1b[2J\\x1b]0;owned\\x07');
    expect(list.stdout).toContain('\t2 files (1 skipped: pipe\\x1b[8m (special))\t');
    expect(list.stdout.trim().split('\n')).toHaveLength(1);

    // Since the turn: the file is ignored and changed — the restore keeps it aside and names it in its one line.
    writeFileSync(join(ws, '.gitignore'), 'notes*\n');
    writeFileSync(join(ws, name), 'now\n');
    const restore = await cli(home, ['checkpoints', 'restore', '--session', 'esc', '--id', items[0]!.id]);
    expect(restore.exitCode, restore.stderr).toBe(0);
    expect(restore.stdout).not.toMatch(RAW_CONTROL);
    expect(restore.stdout).toContain('\\r');
    expect(restore.stdout).toContain('kept aside (not in a checkpoint): notes\\nRestored everything. \\x1b[2K.txt.agentdesk-kept-');
    expect(restore.stdout.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(ws, name), 'utf8')).toBe('then\n');
  }, 120_000);
});

describe('checkpoints restore of a workspace replaced by a link', () => {
  it('exit 1 and one escaped line saying nothing was changed; the folder the link names is untouched', async () => {
    const home = await homeWith(fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeant/claude-fake' } } } }), 'cpa-home');
    // The workspace's own name holds an escape sequence: the line that names it must not carry it raw.
    const ws = join(await tempDir('cpa-parent'), 'proj\x1b[2J');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'original\n');
    fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'changed\n' } }] }, { text: 'Done.' });
    const t = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--session', 'swap', '--approve', 'auto', '--message', 'Change a.txt'], { env: cleanEnv(KEY), timeoutMs: 60_000 });
    expect(t.exitCode, t.stderr).toBe(0);
    const items = JSON.parse((await cli(home, ['checkpoints', 'list', '--session', 'swap', '--json'])).stdout) as { id: string }[];
    // Another chat's agent (whose folder holds this one) moves it and puts a link to the person's files there.
    const person = await tempDir('cpa-person');
    writeFileSync(join(person, 'thesis.tex'), 'years of work\n');
    renameSync(ws, `${ws}.moved`);
    symlinkSync(person, ws);
    const r = await cli(home, ['checkpoints', 'restore', '--session', 'swap', '--id', items[0]!.id]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toMatch(/^agentdesk: .*proj\\x1b\[2J is no longer the folder that was checkpointed .*: nothing was changed\.$/m);
    expect(readdirSync(person)).toEqual(['thesis.tex']);
    expect(readFileSync(join(`${ws}.moved`, 'a.txt'), 'utf8')).toBe('changed\n');
  }, 120_000);
});
