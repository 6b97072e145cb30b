/**
 * `exec {command, timeoutSeconds?}`: runs a shell command in the workspace with a scrubbed environment.
 * The command runs in its own process group (POSIX), so a timeout or an abort kills the whole tree: SIGTERM to
 * the group, SIGKILL after a grace period, and SIGKILL to whatever is left once the result is in.
 * A non-zero exit is a normal result (the model needs the output); a timeout or abort throws a ToolError that
 * carries the output captured so far.
 */
import { existsSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { parseArgs } from './args.js';
import { scrubEnv } from './env.js';
import { HeadTailCollector } from './text.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
export const MAX_EXEC_TIMEOUT_MS = 600_000;
export const DEFAULT_EXEC_CAP_CHARS = 30_000;
const DEFAULT_KILL_GRACE_MS = 2_000;
/** After the shell exits, wait this long for output still in the pipes, then stop listening. */
const DEFAULT_DRAIN_MS = 250;

export interface ExecToolOptions {
  timeoutMs?: number;
  capChars?: number;
  /** Between SIGTERM and SIGKILL on timeout/abort. */
  killGraceMs?: number;
  /** Base environment before scrubbing (default process.env). */
  env?: NodeJS.ProcessEnv;
}

const Args = z.strictObject({
  command: z.string({ error: '`command` must be a string' }).refine((s) => s.trim() !== '', {
    error: '`command` must not be empty',
  }),
  timeoutSeconds: z
    .number({ error: '`timeoutSeconds` must be a positive number' })
    .positive({ error: '`timeoutSeconds` must be a positive number' })
    .nullish(),
});

const isPosix = process.platform !== 'win32';
const shell: string | boolean = isPosix ? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh') : true;

export function createExecTool(opts: ExecToolOptions = {}): Tool {
  const settings = {
    timeoutMs: Math.min(opts.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS, MAX_EXEC_TIMEOUT_MS),
    capChars: opts.capChars,
    killGraceMs: opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    env: opts.env,
  };
  return {
    name: 'exec',
    description:
      `Run a shell command (${isPosix ? 'bash' : 'cmd'}) in the workspace folder and return its combined ` +
      `stdout/stderr and exit code. stdin is closed. Default timeout ${settings.timeoutMs / 1000}s, ` +
      `max ${MAX_EXEC_TIMEOUT_MS / 1000}s; long output keeps its beginning and end.`,
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line to run.' },
        timeoutSeconds: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: MAX_EXEC_TIMEOUT_MS / 1000,
          description: `Kill the command after this many seconds (default ${settings.timeoutMs / 1000}).`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runExec(args, ctx, settings),
  };
}

type Settings = Required<Omit<ExecToolOptions, 'env' | 'capChars'>> & Pick<ExecToolOptions, 'env' | 'capChars'>;

async function runExec(rawArgs: unknown, ctx: ToolContext, s: Settings): Promise<ToolOutput> {
  const args = parseArgs('exec', Args, rawArgs);
  const timeoutMs =
    args.timeoutSeconds != null ? Math.min(args.timeoutSeconds * 1000, MAX_EXEC_TIMEOUT_MS) : s.timeoutMs;
  if (ctx.signal.aborted) throw new ToolError('exec: aborted before the command started');

  // Loaded on first use: most runs never start a command, and execa's load time would land on every CLI start.
  const { execa } = await import('execa');
  const started = Date.now();
  const child = execa(args.command, {
    shell,
    cwd: ctx.workspace,
    env: scrubEnv(s.env ?? process.env),
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    detached: isPosix,
    cancelSignal: ctx.signal,
    forceKillAfterDelay: s.killGraceMs,
    windowsHide: true,
  });
  const pid = child.pid;
  if (pid !== undefined && isPosix) liveGroups.add(pid);

  const killTree = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      if (isPosix) process.kill(-pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };

  // Output: capped collection plus live updates (deltas), the live feed stops at the same cap.
  // T4: an explicit cap wins, else the run's budget (a share of its context window), else the default.
  const capChars = s.capChars ?? ctx.resultMaxChars ?? DEFAULT_EXEC_CAP_CHARS;
  const collector = new HeadTailCollector(capChars);
  const decoder = new StringDecoder('utf8');
  let streamed = 0;
  const emit = (text: string): void => {
    if (text === '') return;
    collector.push(text);
    if (!ctx.onUpdate || streamed > capChars) return;
    streamed += text.length;
    ctx.onUpdate(streamed > capChars ? `${text}\n[… live output paused; the result keeps head and tail …]` : text);
  };
  child.all?.on('data', (chunk: Buffer | string) => emit(typeof chunk === 'string' ? chunk : decoder.write(chunk)));

  // Kill on timeout or abort.
  let reason: 'timeout' | 'aborted' | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (why: 'timeout' | 'aborted'): void => {
    if (reason) return;
    reason = why;
    killTree('SIGTERM');
    graceTimer = setTimeout(() => killTree('SIGKILL'), s.killGraceMs);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = (): void => stop('aborted');
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  // A background process may keep the pipes open after the shell exits: do not wait for it.
  let drainTimer: NodeJS.Timeout | undefined;
  let abandonedPipes = false;
  child.once('exit', () => {
    drainTimer = setTimeout(() => {
      if (!child.stdout?.readableEnded || !child.stderr?.readableEnded) abandonedPipes = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, DEFAULT_DRAIN_MS);
  });

  const result = await child;
  clearTimeout(timer);
  clearTimeout(drainTimer);
  clearTimeout(graceTimer);
  ctx.signal.removeEventListener('abort', onAbort);
  if (reason) killTree('SIGKILL'); // stragglers that ignored SIGTERM
  if (pid !== undefined) liveGroups.delete(pid);
  emit(decoder.end());

  const durationMs = Date.now() - started;
  if (reason === undefined && result.exitCode === undefined && result.signal === undefined) {
    throw new ToolError(`exec: could not run the command: ${result.shortMessage ?? result.message ?? 'unknown error'}`);
  }

  let output = collector.text().replace(/\n$/, '');
  if (abandonedPipes) {
    output += '\n[output after the shell exited was not captured: a background process still holds it]';
  }
  const status =
    reason === 'timeout'
      ? `killed: timed out after ${formatSeconds(timeoutMs)}`
      : reason === 'aborted'
        ? 'killed: aborted'
        : result.signal
          ? `killed by signal ${result.signal}`
          : `exit code ${result.exitCode}`;
  const content = `${output === '' ? '(no output)' : output}\n\n${status}`;
  if (reason) throw new ToolError(content);
  return {
    content,
    details: {
      pid: pid ?? null,
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      durationMs,
      outputChars: collector.length,
      truncated: collector.truncated,
    },
  };
}

/** 2000 → "2s", 500 → "0.5s". */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** Process groups still running; killed if the app exits (execa's `cleanup` does not cover detached children). */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
