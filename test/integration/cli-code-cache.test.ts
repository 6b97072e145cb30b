/**
 * The command line's code cache (bin/code-cache.mjs) through the built bin: the first run of a build saves what V8
 * compiled in the user's cache folder, a later run uses it (another command adds its functions once) (and still imports ES modules: a plugin, loaded with
 * import() from cached code, which Node 20 cannot do without the bin's import function), a changed build file is
 * compiled again, AGENTDESK_CODE_CACHE=0 writes nothing, and a folder others may write is never used. A turn that
 * reaches a model (its first fetch() sets `--liftoff-only`, bin/wasm-baseline.mjs) leaves a cache the next turn takes.
 */
import { chmod, mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ensureBuilt, ROOT, runCli, tempDir, writeConfig } from '../support/cli.js';
import { fakeProvidersConfig, homeWith, useCliFakes } from '../support/cli-fakes.js';

const CLI = join(ROOT, 'out', 'main', 'cli.cjs');

async function pluginHome(): Promise<string> {
  const h = await tempDir('home');
  await writeConfig(h, { plugins: { enabled: ['hello'] } });
  await mkdir(join(h, 'plugins', 'hello'), { recursive: true });
  await writeFile(join(h, 'plugins', 'hello', 'index.mjs'), `export default (api) => { api.on('agent_end', () => {}); };`);
  return h;
}

const fakes = useCliFakes({ workspacePrefix: 'cc-ws' });

const cacheFiles = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.v8cache'));

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

describe('agentdesk code cache', () => {
  it('is written by the first run, used by the next (import() still works), and rewritten for a changed build', async () => {
    const xdg = await tempDir('xdg');
    const dir = join(xdg, 'agentdesk', 'code-cache');
    const home = await pluginHome();
    const env = cleanEnv({ XDG_CACHE_HOME: xdg });
    const first = await runCli(['plugins', 'list', '--home', home], { env });
    expect(first.stdout).toBe('hello  enabled  hooks: agent_end');
    const files = await cacheFiles(dir);
    expect(files).toContain(`${encodeURIComponent(CLI)}.v8cache`);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const entry = join(dir, `${encodeURIComponent(CLI)}.v8cache`);
    const written = (await stat(entry)).mtimeMs;

    const second = await runCli(['plugins', 'list', '--home', home], { env });
    expect(second).toMatchObject({ exitCode: 0, stdout: first.stdout, stderr: '' });
    expect((await stat(entry)).mtimeMs).toBe(written); // used, not written again

    // Another command: its functions are added once (the cache is saved again), then it is used as it is.
    expect((await runCli(['usage', '--home', home], { env })).exitCode).toBe(0);
    const added = (await stat(entry)).mtimeMs;
    expect(added).toBeGreaterThan(written);
    expect((await runCli(['usage', '--home', home], { env })).exitCode).toBe(0);
    expect((await runCli(['plugins', 'list', '--home', home], { env })).stdout).toBe(first.stdout);
    expect((await stat(entry)).mtimeMs).toBe(added);

    // Another build of the same file (its mtime changes): compiled anew, its cache replaced.
    const now = new Date();
    const before = await stat(CLI);
    await utimes(CLI, before.atime, now);
    try {
      const third = await runCli(['plugins', 'list', '--home', home], { env });
      expect(third.stdout).toBe(first.stdout);
      expect((await stat(entry)).mtimeMs).toBeGreaterThan(added);
    } finally {
      await utimes(CLI, before.atime, before.mtime);
    }
  }, 60_000);

  it('a turn that fetched leaves a cache the next turn takes as it is (the flag set at the first fetch is not in it)', async () => {
    const xdg = await tempDir('xdg');
    const dir = join(xdg, 'agentdesk', 'code-cache');
    const home = await homeWith(fakeProvidersConfig(fakes, { extra: { agent: { model: { primary: 'fakeant/claude-fake' } } } }));
    const env = cleanEnv({ XDG_CACHE_HOME: xdg, FAKE_ANT_KEY: 'sk-ant-codecache-0001' });
    fakes.anthropic.setDefault({ text: 'cached answer' });
    const turn = () => runCli(['agent', '--home', home, '--workspace', fakes.workspace, '--session', 'cc', '--message', 'hello'], { env });
    expect(await turn()).toMatchObject({ exitCode: 0, stdout: 'cached answer' });
    const files = await cacheFiles(dir);
    expect(files).toContain(`${encodeURIComponent(CLI)}.v8cache`);
    expect(files.some((n) => n.includes('cli-chunks'))).toBe(true); // the SDK's chunk, compiled for the request
    const written = await Promise.all(files.map(async (n) => (await stat(join(dir, n))).mtimeMs));
    expect(await turn()).toMatchObject({ exitCode: 0, stdout: 'cached answer' });
    // Taken, not refused and saved again (a cache made under other V8 flags is refused by V8).
    expect(await Promise.all(files.map(async (n) => (await stat(join(dir, n))).mtimeMs))).toEqual(written);
  }, 60_000);

  it('AGENTDESK_CODE_CACHE=0 writes nothing; a cache folder others may write is not used', async () => {
    const home = await pluginHome();
    const off = await tempDir('xdg');
    const r = await runCli(['plugins', 'list', '--home', home], { env: cleanEnv({ XDG_CACHE_HOME: off, AGENTDESK_CODE_CACHE: '0' }) });
    expect(r.stdout).toBe('hello  enabled  hooks: agent_end');
    expect(await readdir(off)).toEqual([]);

    const shared = await tempDir('xdg');
    const dir = join(shared, 'agentdesk', 'code-cache');
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
    const s = await runCli(['plugins', 'list', '--home', home], { env: cleanEnv({ XDG_CACHE_HOME: shared }) });
    expect(s.stdout).toBe('hello  enabled  hooks: agent_end');
    expect(await cacheFiles(dir)).toEqual([]);
  }, 60_000);
});
