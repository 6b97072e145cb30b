/**
 * `exec {command, timeoutSeconds?, background?}`: runs a shell command in the workspace with a scrubbed
 * environment (env.ts), inside the OS sandbox when it is on (sandbox/: bubblewrap on Linux, sandbox-exec on
 * macOS). The command runs in its own process group (POSIX), so a timeout or an abort kills the whole tree:
 * SIGTERM to the group, SIGKILL after a grace period; under bubblewrap the PID namespace dies with it, taking
 * setsid'd and double-forked children along. A non-zero exit is a normal result (the model needs the output);
 * a timeout or abort throws a ToolError carrying the output so far. `background: true` returns a handle at once
 * (processes.ts). cwd is always the workspace: asking for another one is refused.
 */
import { StringDecoder } from 'node:string_decoder';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { scrubEnv, type ScrubOptions } from './env.js';
import { NO_RUN, processTable, type BackgroundProcess, type ProcessTable } from './processes.js';
import {
  bindSources,
  BWRAP_FIRST_SOURCE_FD,
  BWRAP_SECCOMP_FD,
  detectSandbox,
  openSocketFilter,
  sandboxedArgv,
  sandboxPlan,
  type SandboxSettings,
  type SandboxStatus,
} from './sandbox/index.js';
import { openMountSources, type MountSources } from './sandbox/mount-sources.js';
import { HeadTailCollector } from './text.js';
import { prepareExecProtection } from './protected/exec-guard.js';
import { watchSandbox, type WatchdogReason } from './sandbox/watchdog.js';
import { defaultLimits, limitedArgv, totalMemoryMiB, type SandboxLimits } from './sandbox/limits.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
export const MAX_EXEC_TIMEOUT_MS = 600_000;
/** Background commands live at most this long unless timeoutSeconds says otherwise (then ≤ 600 s too). */
export const DEFAULT_BACKGROUND_TIMEOUT_MS = 600_000;
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
  /** The OS sandbox (default: on, network on, nothing extra hidden). */
  sandbox?: SandboxSettings;
  /** Names and values of configured keys to drop from the environment (asked for each command). */
  secrets?: () => ScrubOptions | Promise<ScrubOptions>;
  processes?: ProcessTable;
}

const Args = lazy(() => z.strictObject({
  command: z.string({ error: '`command` must be a string' }).refine((s) => s.trim() !== '', {
    error: '`command` must not be empty',
  }),
  timeoutSeconds: z
    .number({ error: '`timeoutSeconds` must be a positive number' })
    .positive({ error: '`timeoutSeconds` must be a positive number' })
    .nullish(),
  background: z.boolean({ error: '`background` must be true or false' }).nullish(),
}));

const isPosix = process.platform !== 'win32';
const shellPath = isPosix ? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh') : undefined;
/** Argument names models use for a working folder: refused with a message saying how to do it instead. */
const CWD_NAMES = ['cwd', 'workdir', 'workingDirectory', 'dir', 'directory'];

export const DEFAULT_SANDBOX: SandboxSettings = { enabled: true, network: true, hide: [] };

export function createExecTool(opts: ExecToolOptions = {}): Tool {
  const settings: Settings = {
    timeoutMs: Math.min(opts.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS, MAX_EXEC_TIMEOUT_MS),
    capChars: opts.capChars,
    killGraceMs: opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    env: opts.env,
    sandbox: opts.sandbox ?? DEFAULT_SANDBOX,
    secrets: opts.secrets,
    processes: opts.processes ?? processTable,
  };
  return {
    name: 'exec',
    description:
      `Run a shell command (${isPosix ? 'bash' : 'cmd'}) in the workspace folder and return its combined ` +
      `stdout/stderr and exit code. stdin is closed. Default timeout ${settings.timeoutMs / 1000}s, ` +
      `max ${MAX_EXEC_TIMEOUT_MS / 1000}s; long output keeps its beginning and end. The working folder is ` +
      'always the workspace (use `cd sub && …` inside the command). background: true starts it and returns a ' +
      'handle for the process tool (servers, watchers).',
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
        background: { type: 'boolean', description: 'Start it in the background and return a handle. Default false.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runExec(args, ctx, settings),
  };
}

interface Settings {
  timeoutMs: number;
  /** Explicit cap; else the run's T4 budget (ctx.resultMaxChars), else DEFAULT_EXEC_CAP_CHARS. */
  capChars?: number;
  killGraceMs: number;
  env?: NodeJS.ProcessEnv;
  sandbox: SandboxSettings;
  secrets?: ExecToolOptions['secrets'];
  processes: ProcessTable;
}

/** What exec will run under, for the approval card ("not sandboxed"). */
export async function execSandboxStatus(sandbox: SandboxSettings): Promise<SandboxStatus> {
  return sandbox.enabled ? detectSandbox() : { kind: 'none', reason: 'the sandbox is turned off in settings' };
}

async function runExec(rawArgs: unknown, ctx: ToolContext, s: Settings): Promise<ToolOutput> {
  const given = typeof rawArgs === 'object' && rawArgs !== null ? (rawArgs as Record<string, unknown>) : {};
  const cwdKey = CWD_NAMES.find((k) => k in given);
  if (cwdKey) {
    throw new ToolError(
      `exec: \`${cwdKey}\` cannot be set: commands always run in the workspace folder; use \`cd sub && …\` inside the command`,
    );
  }
  const args = parseArgs('exec', Args, rawArgs);
  const background = args.background === true;
  const limit = background ? DEFAULT_BACKGROUND_TIMEOUT_MS : s.timeoutMs;
  const timeoutMs = args.timeoutSeconds != null ? Math.min(args.timeoutSeconds * 1000, MAX_EXEC_TIMEOUT_MS) : limit;
  if (ctx.signal.aborted) throw new ToolError('exec: aborted before the command started');

  const sandbox = await execSandboxStatus(s.sandbox);
  // X5: protected paths read-only inside the sandbox (git hooks and config, AGENTS.md, .vscode…), checked after.
  const protection =
    sandbox.kind !== 'none' && shellPath
      ? await prepareExecProtection(ctx.workspace, { isHome: ctx.workspace === realHome(), mountPoints: sandbox.kind === 'bwrap' })
      : undefined;
  const scrub = (await s.secrets?.()) ?? {};
  const env = { ...scrubEnv(s.env ?? process.env, scrub), ...(sandbox.kind === 'bwrap' ? { TMPDIR: '/tmp' } : {}) };
  // Loaded on first use: most runs never start a command, and execa's load time would land on every CLI start.
  const { execa } = await import('execa');
  // Under bubblewrap: the unix-socket filter on fd 4 (sandbox/seccomp.ts), in both network modes. Failing to write
  // it fails the command rather than running it without.
  const filter = shellPath
    ? await openSocketFilter(sandbox.kind).catch((e: unknown) => {
        throw new ToolError(`exec: could not prepare the sandbox's socket filter: ${e instanceof Error ? e.message : String(e)}`);
      })
    : undefined;
  // X5: under bubblewrap the shell first lowers its process and memory limits (sandbox/limits.ts).
  const limits: SandboxLimits = { ...defaultLimits(), ...s.sandbox.limits };
  const inner = shellPath ? (sandbox.kind === 'bwrap' ? limitedArgv(shellPath, args.command, limits) : [shellPath, '-c', args.command]) : null;
  const plan = sandboxPlan(s.sandbox, ctx.workspace, protection ? { readOnly: protection.readOnly, blocked: protection.blocked, pinned: protection.pinned } : {});
  // The binds' sources, opened and checked now (a concurrent command cannot swap them before bwrap mounts them).
  let sources: MountSources | undefined;
  try {
    sources = inner && sandbox.kind === 'bwrap' ? openMountSources(bindSources(plan), BWRAP_FIRST_SOURCE_FD) : undefined;
  } catch (err) {
    filter?.close();
    await protection?.finish();
    throw new ToolError(`exec: the workspace changed while the sandbox was being prepared; try again (${(err as Error).message})`);
  }
  const argv = inner ? sandboxedArgv(sandbox.kind, { ...plan, ...(sources ? { sourceFds: sources.childFds } : {}) }, inner, filter ? BWRAP_SECCOMP_FD : undefined) : null;
  const started = Date.now();
  const options = {
    cwd: ctx.workspace,
    env,
    extendEnv: false,
    // fd 3 under bubblewrap: its --info-fd (the sandbox's first process id); fd 4: its --seccomp filter.
    stdio: (sandbox.kind === 'bwrap'
      ? ['ignore', 'pipe', 'pipe', 'pipe', filter ? filter.fd : 'ignore', ...(sources?.fds ?? [])]
      : ['ignore', 'pipe', 'pipe']) as [
      'ignore',
      'pipe',
      'pipe',
    ],
    all: true,
    buffer: false,
    reject: false,
    detached: isPosix,
    windowsHide: true,
  } as const;
  let child;
  try {
    child = argv ? execa(argv[0]!, argv.slice(1), options) : execa(args.command, { ...options, shell: true });
  } catch (err) {
    await protection?.finish();
    throw err;
  } finally {
    filter?.close(); // the child has its own copy once spawned
    sources?.close();
  }
  const pid = child.pid;

  // Under bubblewrap the sandbox's first process is outside our process group (--new-session). Killing bwrap
  // alone while it is still setting up can orphan that process before --die-with-parent is armed, so every kill
  // waits until bwrap has reported it (--info-fd) and then also SIGKILLs it: the kernel then ends the whole PID
  // namespace, setsid'd and double-forked children included.
  const sandboxPid = sandbox.kind === 'bwrap' && argv ? readSandboxPid(child.stdio[3] as NodeJS.ReadableStream | undefined) : undefined;
  const signalTree = (signal: NodeJS.Signals, inner: number | undefined): void => {
    if (pid === undefined) return;
    try {
      if (inner !== undefined) process.kill(inner, 'SIGKILL');
    } catch {
      // already gone
    }
    try {
      if (isPosix) process.kill(-pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  const killTree = (signal: NodeJS.Signals): void => {
    if (sandboxPid) void sandboxPid.then((inner) => signalTree(signal, inner));
    else signalTree(signal, undefined);
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
    if (background || !ctx.onUpdate || streamed > capChars) return;
    streamed += text.length;
    ctx.onUpdate(streamed > capChars ? `${text}\n[… live output paused; the result keeps head and tail …]` : text);
  };
  child.all?.on('data', (chunk: Buffer | string) => emit(typeof chunk === 'string' ? chunk : decoder.write(chunk)));

  // Kill on timeout or abort (for a background command: also when the run ends or process kill is called), or
  // when the sandbox holds more processes than its limit (the watchdog below).
  let reason: 'timeout' | 'aborted' | 'killed' | 'limit' | undefined;
  let overLimit: WatchdogReason | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (why: 'timeout' | 'aborted' | 'killed' | 'limit'): void => {
    if (reason) return;
    reason = why;
    killTree('SIGTERM');
    graceTimer = setTimeout(() => killTree('SIGKILL'), s.killGraceMs);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const totalMemoryKiB = totalMemoryMiB(limits) * 1024;
  const watchdog = sandboxPid
    ? watchSandbox(sandboxPid, { processes: limits.processes, totalMemoryKiB }, (why) => {
        overLimit = why;
        stop('limit');
      })
    : undefined;
  const onAbort = (): void => stop('aborted');
  if (!background) ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (pid !== undefined && isPosix) liveGroups.add(pid);

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

  const finished = (async () => {
    const result = await child;
    clearTimeout(timer);
    watchdog?.stop();
    clearTimeout(drainTimer);
    clearTimeout(graceTimer);
    ctx.signal.removeEventListener('abort', onAbort);
    if (reason) killTree('SIGKILL'); // stragglers that ignored SIGTERM
    if (pid !== undefined) liveGroups.delete(pid);
    emit(decoder.end());
    // Every process of the sandbox is gone (its PID namespace ended with bwrap): clean up and check what changed.
    const guarded = (await protection?.finish().catch((e: unknown) => [`could not check the protected paths: ${(e as Error).message}`])) ?? [];
    const status =
      reason === 'timeout'
        ? `killed: timed out after ${formatSeconds(timeoutMs)}`
        : reason === 'aborted'
          ? 'killed: aborted'
          : reason === 'killed'
            ? 'killed'
            : reason === 'limit'
              ? overLimit === 'memory'
                ? `killed: its processes used more than ${totalMemoryMiB(limits)} MiB of memory together (twice agent.limits.memoryMiB)`
                : `killed: more than ${limits.processes} processes at once (the sandbox's limit, agent.limits.processes)`
            : result.signal
              ? `killed by signal ${result.signal}`
              : result.exitCode === undefined
                ? `could not run the command: ${result.shortMessage ?? result.message ?? 'unknown error'}`
                : `exit code ${result.exitCode}`;
    return { result, status, guarded };
  })();

  const sandboxNote =
    sandbox.kind === 'none'
      ? { sandbox: 'none', sandboxReason: sandbox.reason }
      : { sandbox: sandbox.kind, ...(sandbox.gap ? { sandboxGap: sandbox.gap } : {}) };

  if (background) {
    const runId = ctx.run?.runId ?? NO_RUN;
    const entry: BackgroundProcess = {
      id: s.processes.newId(),
      pid,
      command: args.command,
      startedAt: started,
      output: collector,
      kill: () => stop('killed'),
      done: finished.then(({ status, guarded }) => {
        entry.status = guarded.length > 0 ? `${status}; ${protectedNote(guarded)}` : status;
      }),
    };
    s.processes.add(runId, entry);
    return {
      content:
        `Started in the background as ${entry.id}${sandbox.kind === 'none' ? '' : ' (sandboxed)'}. ` +
        `Use process {action: "output", id: "${entry.id}"} to read its output and {action: "kill"} to stop it; ` +
        `it is killed after ${formatSeconds(timeoutMs)} or when this run ends.`,
      details: { id: entry.id, pid: pid ?? null, ...sandboxNote },
    };
  }

  const { result, status, guarded } = await finished;
  const durationMs = Date.now() - started;
  if (reason === undefined && result.exitCode === undefined && result.signal === undefined) {
    throw new ToolError(`exec: ${status}`);
  }
  let output = collector.text().replace(/\n$/, '');
  if (abandonedPipes) {
    output += '\n[output after the shell exited was not captured: a background process still holds it]';
  }
  const content = `${output === '' ? '(no output)' : output}\n\n${status}${guarded.length > 0 ? `\n\n${protectedNote(guarded)}` : ''}`;
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
      ...sandboxNote,
      ...(guarded.length > 0 ? { protected: guarded } : {}),
    },
  };
}

/** What the command did to protected paths and what was undone (exec-guard.ts), for the model and the person. */
function protectedNote(lines: readonly string[]): string {
  return `[protected paths — changes undone because they would run outside the sandbox later:\n${lines.join('\n')}]`;
}

let homeReal: string | undefined;
/** The home folder's real path (cached): a workspace that is the home folder gets its shell files blocked too. */
function realHome(): string {
  homeReal ??= (() => {
    try {
      return realpathSync(homedir());
    } catch {
      return homedir();
    }
  })();
  return homeReal;
}

/** The `child-pid` bwrap writes on its --info-fd; undefined when it ends without one (or after 5 s). */
function readSandboxPid(stream: NodeJS.ReadableStream | undefined): Promise<number | undefined> {
  if (!stream) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const done = (v: number | undefined): void => {
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => done(undefined), 5000);
    stream.on('data', (d: Buffer | string) => {
      text += d.toString();
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (m) done(Number(m[1]));
    });
    stream.on('end', () => done(undefined));
    stream.on('error', () => done(undefined));
  });
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
