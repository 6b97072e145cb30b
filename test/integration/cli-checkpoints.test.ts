/**
 * X2 through the built CLI, the real Anthropic SDK and the fake server's scripted tool calls (issue 17 "Done when"):
 * a `write` turn, then an `exec` turn that deletes one file and creates another, then a read-only turn (no
 * checkpoint). Restoring to before the exec turn brings the deleted file back and removes the created one;
 * restoring to before the write turn restores the original content; `undo` returns to the state before the last
 * restore; `--conversation` cuts the chat back in a new branch and undo brings the old one back. In a folder that
 * is a git repository with staged changes, every file under `.git` is byte-identical before and after all of it;
 * a folder that is not a repository works the same. Unknown ids and sessions: exit 2 and one line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastUserText } from '../fake/index.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const fakes = useCliFakes({ workspacePrefix: 'cp-unused' });
const KEY = { FAKE_ANT_KEY: 'sk-ant-test-key-1717' };
const BIN = join(ROOT, 'bin', 'agentdesk.mjs');

/** Every file under `dir` with its bytes (hex digest not needed: the test compares whole contents). */
function snapshotDir(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const st = statSync(join(dir, r));
    if (st.isDirectory()) Object.assign(out, snapshotDir(dir, r));
    else out[r] = `${st.mode.toString(8)}:${readFileSync(join(dir, r)).toString('base64')}`;
  }
  return out;
}

async function setup(git: boolean) {
  const home = await homeWith(fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeant/claude-fake' } } } }), 'cp-home');
  const ws = await tempDir('cp-ws');
  writeFileSync(join(ws, 'a.txt'), 'original a\n');
  writeFileSync(join(ws, 'b.txt'), 'original b\n');
  if (git) {
    const g = (...args: string[]) => execFileSync('git', args, { cwd: ws, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    g('init', '-q');
    g('add', 'a.txt', 'b.txt');
    g('commit', '-qm', 'first');
    writeFileSync(join(ws, 'a.txt'), 'original a\nstaged line\n');
    g('add', 'a.txt');
    writeFileSync(join(ws, 'unstaged.txt'), 'not added\n');
  }
  return { home, ws };
}

const cli = (home: string, args: string[]) => runCli([...args, '--home', home], { env: cleanEnv(KEY), timeoutMs: 60_000 });

async function turn(home: string, ws: string, session: string, message: string, toolCalls: { name: string; arguments: Record<string, unknown> }[]) {
  if (toolCalls.length) fakes.anthropic.enqueue({ toolCalls }, { text: 'Done.' });
  else fakes.anthropic.enqueue({ text: 'Nothing to change.' });
  const r = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--session', session, '--approve', 'auto', '--message', message], {
    env: cleanEnv(KEY),
    timeoutMs: 60_000,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.lines.filter((l) => l.stream === 'checkpoint').map((l) => l.data as Record<string, unknown>);
}

describe.each([
  ['a folder that is not a repository', false],
  ['a git repository with staged changes', true],
])('checkpoints through the CLI in %s', (_name, git) => {
  it('write turn, exec turn, restore, restore, undo — and .git untouched', async () => {
    const { home, ws } = await setup(git);
    const gitBefore = git ? snapshotDir(join(ws, '.git')) : {};
    const a = (await turn(home, ws, 's1', 'Change a.txt please\nsecond line', [{ name: 'write', arguments: { path: 'a.txt', content: 'changed by the agent\n' } }]));
    expect(a).toEqual([expect.objectContaining({ phase: 'created', label: 'Change a.txt please', toolName: 'write' })]);
    await turn(home, ws, 's1', 'Tidy up with the shell', [{ name: 'exec', arguments: { command: 'rm b.txt && echo created > c.txt' } }]);
    expect(existsSync(join(ws, 'b.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'c.txt'), 'utf8')).toBe('created\n');
    // A turn without a mutating call records nothing.
    expect(await turn(home, ws, 's1', 'Just read it', [{ name: 'read', arguments: { path: 'a.txt' } }])).toEqual([]);

    const list = await cli(home, ['checkpoints', 'list', '--session', 's1', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    const items = JSON.parse(list.stdout) as { id: string; createdAt: number; label: string; files: number }[];
    expect(items.map((i) => i.label)).toEqual(['Change a.txt please', 'Tidy up with the shell']);
    expect(items.every((i) => typeof i.id === 'string' && typeof i.createdAt === 'number' && typeof i.files === 'number')).toBe(true);
    expect(items[0]!.createdAt).toBeLessThanOrEqual(items[1]!.createdAt);
    expect(items.map((i) => i.files)).toEqual(git ? [3, 3] : [2, 2]);

    const toExec = await cli(home, ['checkpoints', 'restore', '--session', 's1', '--id', items[1]!.id]);
    expect(toExec.exitCode, toExec.stderr).toBe(0);
    expect(toExec.stdout.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('original b\n');
    expect(existsSync(join(ws, 'c.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('changed by the agent\n');

    const toWrite = await cli(home, ['checkpoints', 'restore', '--session', 's1', '--id', items[0]!.id]);
    expect(toWrite.exitCode, toWrite.stderr).toBe(0);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe(git ? 'original a\nstaged line\n' : 'original a\n');

    const undo = await cli(home, ['checkpoints', 'undo', '--session', 's1']);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/^Undid the last restore/);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('changed by the agent\n');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('original b\n');
    expect(existsSync(join(ws, 'c.txt'))).toBe(false);

    const unknown = await cli(home, ['checkpoints', 'restore', '--session', 's1', '--id', 'nope-123']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('nope-123');
    if (git) {
      expect(snapshotDir(join(ws, '.git'))).toEqual(gitBefore);
      expect(readFileSync(join(ws, 'unstaged.txt'), 'utf8')).toBe('not added\n');
    }
  }, 120_000);
});

describe('a large folder: the turn capture prepared on the checkpoint worker (the built out/main/checkpoint-worker.js)', () => {
  it('records the folder as at the turn start, with the pre-write content; a read-only turn records nothing and leaves no temporary pack', async () => {
    const { home, ws } = await setup(false);
    // Past PREFETCH_MIN_ENTRIES (2 000): from the second turn on, the capture is prepared from the run's start.
    for (let d = 0; d < 21; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let i = 0; i < 100; i++) writeFileSync(join(ws, `d${d}`, `f${i}.txt`), `${d}/${i}\n`);
    }
    const first = await turn(home, ws, 'w1', 'First write', [{ name: 'write', arguments: { path: 'a.txt', content: 'one\n' } }]);
    expect(first).toEqual([expect.objectContaining({ phase: 'created', files: 2102 })]);
    expect(first[0]!.takenAt).toBeUndefined(); // the folder's first capture: taken at the gate, in the main thread
    const second = await turn(home, ws, 'w1', 'Second write', [{ name: 'write', arguments: { path: 'd3/f7.txt', content: 'by the agent\n' } }]);
    expect(second).toEqual([expect.objectContaining({ phase: 'created', files: 2102, takenAt: expect.any(Number) })]);
    expect(readFileSync(join(ws, 'd3/f7.txt'), 'utf8')).toBe('by the agent\n');
    expect(await turn(home, ws, 'w1', 'Only look', [{ name: 'read', arguments: { path: 'a.txt' } }])).toEqual([]);
    const packs = readdirSync(join(home, 'checkpoints', 'packs'));
    expect(packs.filter((n) => n.startsWith('tmp-'))).toEqual([]);
    const items = JSON.parse((await cli(home, ['checkpoints', 'list', '--session', 'w1', '--json'])).stdout) as { id: string }[];
    expect(items).toHaveLength(2);
    const r = await cli(home, ['checkpoints', 'restore', '--session', 'w1', '--id', items[1]!.id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(ws, 'd3/f7.txt'), 'utf8')).toBe('3/7\n');
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n');
  }, 120_000);
});

/** A folder past PREFETCH_MIN_ENTRIES (2 000 entries) with its first checkpoint taken: later turns are prepared ahead. */
async function largeFolder(session: string) {
  const { home, ws } = await setup(false);
  for (let d = 0; d < 21; d++) {
    mkdirSync(join(ws, `d${d}`));
    for (let i = 0; i < 100; i++) writeFileSync(join(ws, `d${d}`, `f${i}.txt`), `${d}/${i}\n`);
  }
  await turn(home, ws, session, 'First write', [{ name: 'write', arguments: { path: 'a.txt', content: 'one\n' } }]);
  return { home, ws };
}

/** The worker's capture starts this late (a test hook of checkpoint-worker.ts): the write comes before it. */
const HOLD = (ms: number) => cleanEnv({ ...KEY, AGENTDESK_CHECKPOINT_WORKER_HOLD_MS: String(ms) });

describe('copy-on-write: a write that does not wait for the turn capture (the built CLI and worker)', () => {
  it('the write runs first; its checkpoint is still the folder just before it (a changed file, a file in new folders)', async () => {
    const { home, ws } = await largeFolder('cow');
    for (const [message, call] of [
      ['Change d3/f7', { name: 'write', arguments: { path: 'd3/f7.txt', content: 'by the agent\n' } }],
      ['Create new/deep/file', { name: 'write', arguments: { path: 'new/deep/file.txt', content: 'created\n' } }],
    ] as const) {
      fakes.anthropic.enqueue({ toolCalls: [call] }, { text: 'Done.' });
      const r = await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--session', 'cow', '--approve', 'auto', '--message', message], { env: HOLD(1500), timeoutMs: 60_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      const cp = r.lines.filter((l) => l.stream === 'checkpoint').map((l) => l.data);
      expect(cp).toEqual([expect.objectContaining({ phase: 'created', savedFirst: [call.arguments.path], takenAt: expect.any(Number) })]);
      // The tool ran before the commit, and the run ended before it too (the reply does not wait for the capture);
      // the CLI still prints the checkpoint, before the result line.
      const order = r.lines.map((l) => `${String(l.stream)}:${String((l.data as { phase?: string } | undefined)?.phase)}`);
      expect(order.indexOf('tool:end')).toBeLessThan(order.indexOf('checkpoint:created'));
      expect(order.indexOf('lifecycle:end')).toBeLessThan(order.indexOf('checkpoint:created'));
      expect(r.lines.at(-1)).toEqual(expect.objectContaining({ type: 'result', status: 'ok' }));
    }
    expect(readdirSync(join(home, 'checkpoints', 'pending'))).toEqual([]);
    const items = JSON.parse((await cli(home, ['checkpoints', 'list', '--session', 'cow', '--json'])).stdout) as { id: string }[];
    expect(items).toHaveLength(3);
    const r = await cli(home, ['checkpoints', 'restore', '--session', 'cow', '--id', items[1]!.id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(ws, 'd3/f7.txt'), 'utf8')).toBe('3/7\n');
    expect(existsSync(join(ws, 'new'))).toBe(false);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n');
  }, 120_000);

  it('SIGKILL after the write and before the commit: the next start finishes the checkpoint from the saved copy and says so', async () => {
    const { home, ws } = await largeFolder('kill');
    // Only the tool call is queued: the answer after it (the fake's default) may or may not be asked for before the kill.
    fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'd5/f5.txt', content: 'written before the kill\n' } }] });
    const child = spawn(process.execPath, [BIN, 'agent', '--json', '--home', home, '--workspace', ws, '--session', 'kill', '--approve', 'auto', '--message', 'Write then die'], {
      env: HOLD(60_000),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const deadline = Date.now() + 45_000;
    while (readFileSync(join(ws, 'd5/f5.txt'), 'utf8') !== 'written before the kill\n') {
      if (Date.now() > deadline) throw new Error('the write never happened');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(readdirSync(join(home, 'checkpoints', 'pending')).filter((n) => n.endsWith('.json'))).toHaveLength(1);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    writeFileSync(join(ws, 'd9/f9.txt'), 'changed by the person after the crash\n');
    const list = await cli(home, ['checkpoints', 'list', '--session', 'kill', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stderr).toMatch(/session "kill" was interrupted; it was completed from the saved copy of d5\/f5\.txt/);
    const items = JSON.parse(list.stdout) as { id: string; label: string }[];
    expect(items.map((i) => i.label)).toEqual(['First write', 'Write then die']);
    expect(readdirSync(join(home, 'checkpoints', 'pending'))).toEqual([]);
    const r = await cli(home, ['checkpoints', 'restore', '--session', 'kill', '--id', items[1]!.id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(ws, 'd5/f5.txt'), 'utf8')).toBe('5/5\n');
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n');
    // Other files are recorded as they were when the checkpoint was finished (the person's change included).
    expect(readFileSync(join(ws, 'd9/f9.txt'), 'utf8')).toBe('changed by the person after the crash\n');
    // The store is sound: undo returns to the state before that restore.
    expect((await cli(home, ['checkpoints', 'undo', '--session', 'kill'])).exitCode).toBe(0);
    expect(readFileSync(join(ws, 'd5/f5.txt'), 'utf8')).toBe('written before the kill\n');
  }, 120_000);
});

describe('checkpoints restore --conversation', () => {
  it('cuts the chat back before that turn in a new branch; undo brings the old branch back', async () => {
    const { home, ws } = await setup(false);
    await turn(home, ws, 'c1', 'First: write a', [{ name: 'write', arguments: { path: 'a.txt', content: 'one\n' } }]);
    await turn(home, ws, 'c1', 'Second: write b', [{ name: 'write', arguments: { path: 'b.txt', content: 'two\n' } }]);
    const items = JSON.parse((await cli(home, ['checkpoints', 'list', '--session', 'c1', '--json'])).stdout) as { id: string }[];
    const r = await cli(home, ['checkpoints', 'restore', '--session', 'c1', '--id', items[1]!.id, '--conversation']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/conversation continues from there/);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('original b\n');
    // The next turn's request carries the first turn, not the second.
    fakes.anthropic.enqueue({ text: 'ok' });
    await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--session', 'c1', '--message', 'Third'], { env: cleanEnv(KEY) });
    const sent = JSON.stringify(fakes.anthropic.requests.at(-1)!.body.messages);
    expect(sent).toContain('First: write a');
    expect(sent).not.toContain('Second: write b');
    expect(JSON.stringify(lastUserText(fakes.anthropic.requests.at(-1)!))).toContain('Third');
    // The old history is still on disk, and undo switches back to it.
    const u = await cli(home, ['checkpoints', 'undo', '--session', 'c1']);
    expect(u.exitCode, u.stderr).toBe(0);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('two\n');
    fakes.anthropic.enqueue({ text: 'ok' });
    await runCli(['agent', '--json', '--home', home, '--workspace', ws, '--session', 'c1', '--message', 'Fourth'], { env: cleanEnv(KEY) });
    const again = JSON.stringify(fakes.anthropic.requests.at(-1)!.body.messages);
    expect(again).toContain('Second: write b');
    expect(again).not.toContain('Third');
  }, 120_000);

  it('an unknown session is exit 2 with one line naming it; bad flags too', async () => {
    const { home } = await setup(false);
    const r = await cli(home, ['checkpoints', 'list', '--session', 'nobody', '--json']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(/^agentdesk: no session "nobody"/);
    const bad = await cli(home, ['checkpoints', 'restore', '--session', 'x']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe('agentdesk: missing --id ID (see `agentdesk checkpoints list --session KEY`)');
  }, 60_000);
});
