/**
 * Running product code as an unprivileged user (uid/gid 65534) from a test that runs as root, as CI does. The
 * repository may sit in a folder that user cannot read (a clone in a 0700 home), so the code is bundled with
 * rolldown (what `npm run build` uses) into a world-readable temp folder first, node_modules included in the
 * bundle, and run there with setpriv (util-linux): real uid/gid 65534, no supplementary groups, no capabilities.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './cli.js';

const run = promisify(execFile);
export const NOBODY = 65534;

/** Root can drop to another user here (setpriv exists and this process runs as uid 0). */
export const canRunAsNobody = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');

/** Bundles `entry` (a path from the repository root) into a fresh world-readable folder; returns the script. */
export async function bundleForNobody(entry: string): Promise<{ script: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentdesk-nobody-'));
  await chmod(dir, 0o755);
  const { build } = await import('rolldown');
  await build({
    input: path.join(ROOT, entry),
    cwd: ROOT,
    platform: 'node',
    logLevel: 'silent',
    output: { dir, format: 'esm', entryFileNames: 'main.mjs', chunkFileNames: '[name]-[hash].mjs' },
  });
  await run('chmod', ['-R', 'a+rX', dir]);
  return { script: path.join(dir, 'main.mjs'), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** A folder that the unprivileged user owns (inside a world-traversable temp folder). */
export async function nobodyFolder(prefix: string): Promise<{ dir: string; dispose(): Promise<void> }> {
  const parent = await mkdtemp(path.join(tmpdir(), `agentdesk-${prefix}-`));
  await chmod(parent, 0o755);
  const dir = path.join(parent, 'ws');
  await mkdir(dir);
  await chown(dir, NOBODY, NOBODY);
  return { dir, dispose: () => rm(parent, { recursive: true, force: true }) };
}

/** setpriv's argv prefix: uid/gid 65534, no supplementary groups, every capability gone (also from the bounding set). */
export const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--'];

/** Runs `node script args…` as the unprivileged user; resolves with its stdout (rejects on a non-zero exit). */
export async function nodeAsNobody(script: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  const [cmd, ...pre] = AS_NOBODY;
  const { stdout } = await run(cmd!, [...pre, process.execPath, script, ...args], {
    cwd: opts.cwd ?? '/',
    env: opts.env ?? { PATH: process.env.PATH, HOME: '/nonexistent' },
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}
