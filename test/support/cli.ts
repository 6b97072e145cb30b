/** Runs the built `agentdesk` bin as a user would (building first when out/ is missing). */
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'agentdesk.mjs');

export async function ensureBuilt(): Promise<void> {
  if (existsSync(join(ROOT, 'out', 'main', 'cli.cjs')) && existsSync(join(ROOT, 'out', 'main', 'web.js'))) return;
  await execa('npm', ['run', 'build'], { cwd: ROOT });
}

/**
 * An environment without any real provider keys (tests never reach a real provider), in which the demo model streams
 * without its pauses between chunks (AGENTDESK_DEMO_CHUNK_MS=0; `extra` may set another).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI)_/.test(name) || name === 'AGENTDESK_HOME') delete env[name];
  return { ...env, AGENTDESK_DEMO_CHUNK_MS: '0', ...extra };
}

export async function tempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), `agentdesk-${prefix}-`)));
}

export async function writeConfig(home: string, config: unknown): Promise<void> {
  await writeFile(join(home, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config, null, 2));
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  lines: Record<string, unknown>[];
}

export async function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number; wrap?: string[]; nodeArgs?: string[]; bin?: string } = {},
): Promise<CliResult> {
  const [cmd, ...pre] = [...(opts.wrap ?? []), process.execPath, ...(opts.nodeArgs ?? [])];
  const r = await execa(cmd!, [...pre, opts.bin ?? BIN, ...args], {
    env: opts.env ?? cleanEnv(),
    extendEnv: false,
    cwd: opts.cwd ?? ROOT,
    reject: false,
    timeout: opts.timeoutMs ?? 30_000,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' }),
  });
  const stdout = String(r.stdout);
  const lines = args.includes('--json')
    ? stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  return { exitCode: r.exitCode ?? -1, stdout, stderr: String(r.stderr), lines };
}
