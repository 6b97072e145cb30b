/**
 * X2: a CLI turn's checkpoint capture, started by bin/agentdesk.mjs before the command line's bundle loads (its own
 * small build entry, out/main/checkpoint-early.js). Loading and compiling the bundle is most of a turn's start-up;
 * the capture (prepare.ts: the walk of the folder, the last tree read back) runs beside it on the checkpoint worker
 * instead of starting only when the gateway opens.
 *
 * This file only guesses what the gateway will capture — the data folder and the workspace as the `agent` command
 * resolves them, the limits of config.json — from the arguments, without the config schema. The guess is never
 * trusted: the gateway's prefetcher (prefetch.ts) takes the capture only when its input is exactly the one the
 * gateway would use itself (same store, same real workspace, same limits and exclusions), and throws it away
 * otherwise (its temporary pack removed). A wrong guess costs a walk on the other thread, never a wrong checkpoint.
 *
 * Nothing starts (no thread, no walk) unless this folder was checkpointed before with at least
 * PREFETCH_MIN_ENTRIES entries (a small folder is walked in the main thread, faster than a thread starts), checkpoints are
 * not turned off in config.json, no interrupted operation waits in the store's journal, and the message is not a
 * gateway command (`/stop`, `/model …`: no model call, no tool).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { homeFrom } from '../cli/home.js';

/** Entries below which a folder is walked in the main thread (≈ 25 ms of walk: about what a worker's start costs). */
export const PREFETCH_MIN_ENTRIES = 2000;

const MB = 1024 * 1024;

/** What the early capture was asked to prepare (a PrepareInput; prepare.ts). */
export interface EarlyInput {
  dir: string;
  root: string;
  limits: { maxFileBytes: number; maxTotalBytes: number; maxEntries?: number };
  exclude: string[];
  packId: string;
}

/** Left on globalThis by the bin for the gateway's prefetcher (prefetch.ts adopts it). */
export interface EarlyCapture {
  worker: Worker;
  input: EarlyInput;
  /** Messages the worker sent before the prefetcher listened. */
  messages: unknown[];
  /** The worker failed or exited before it was adopted. */
  failed?: Error;
  /** The bin's own listeners (removed by the adopter: only those — the Worker keeps listeners of its own). */
  listeners: Record<'message' | 'error' | 'exit', (arg: unknown) => void>;
}

export const EARLY_CAPTURE_KEY = '__agentdeskEarlyCheckpoint';

/**
 * layout.ts's keyHash, here so that this entry imports no chunk of the app (the bin loads it on every `agent` turn;
 * each module an ES import loads costs start-up). The unit test finds a pointer layout.ts names.
 */
const keyHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);

/**
 * The checkpoint worker's niceness on Linux (background work: the turn's own thread and the app's window come first).
 * The worker sets it on itself too (checkpoint-worker.ts), but only once its script runs — after Node's bootstrap
 * of the thread, ≈ 50 ms of CPU that would otherwise compete at full priority with the main thread's own start-up
 * (in the CLI: the bundle's load).
 */
export const CHECKPOINT_WORKER_NICE = 10;

/**
 * The checkpoint worker's young generation, MB (V8's default lets it grow to 16 MB a semi-space). A capture's
 * garbage — two strings per name walked — dies young, and what survives (the last tree, the new one) is kept anyway:
 * a small young generation reuses the same few pages, where a growing one touches fresh pages at every scavenge. In a
 * new thread every page is faulted in on its first touch (on a virtual machine: tens of µs each), and a later
 * capture of 10 000 files in a new worker touched ≈ 1 000 pages (4 MB) fewer with 2 MB than with the default.
 */
export const CHECKPOINT_WORKER_YOUNG_MB = 2;

/**
 * Starts the checkpoint worker (`new Worker(script, options)`) and, on Linux, lowers the new thread's priority at once
 * from this thread: the one task that appeared in /proc/self/task during the constructor (it starts the thread before
 * it returns). Anything unexpected (no /proc, not exactly one new task, a refused setpriority) leaves it to the worker.
 */
export function startNicedWorker(script: URL, given?: ConstructorParameters<typeof Worker>[1]): Worker {
  const options = { ...given, resourceLimits: { maxYoungGenerationSizeMb: CHECKPOINT_WORKER_YOUNG_MB, ...given?.resourceLimits } };
  if (process.platform !== 'linux') return new Worker(script, options);
  let before: Set<string> | undefined;
  try {
    before = new Set(readdirSync('/proc/self/task'));
  } catch {
    before = undefined;
  }
  const worker = new Worker(script, options);
  if (before) {
    try {
      const fresh = readdirSync('/proc/self/task').filter((t) => !before.has(t));
      if (fresh.length === 1) {
        const tid = Number(fresh[0]);
        setPriority(tid, Math.max(getPriority(tid), getPriority(), CHECKPOINT_WORKER_NICE));
      }
    } catch {
      /* the worker lowers its own priority when its script starts */
    }
  }
  return worker;
}

/** A temporary pack id (objects.ts's format, so garbage collection knows it). */
const packIdNow = () => `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;

const positive = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback);

/**
 * What the `agent` command given `argv` (the arguments after `agent`) will capture first, or undefined when nothing
 * is worth preparing early. Pure apart from reading config.json, the store's pointer and the folder's real path.
 */
export function earlyInput(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): EarlyInput | undefined {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { home: { type: 'string' }, workspace: { type: 'string' }, message: { type: 'string', short: 'm' }, help: { type: 'boolean', short: 'h' } },
      strict: false,
      allowPositionals: true,
    }));
  } catch {
    return undefined;
  }
  const message = typeof values.message === 'string' ? values.message : undefined;
  if (values.help || message === undefined || message.trimStart().startsWith('/')) return undefined;
  const flagHome = typeof values.home === 'string' ? values.home : undefined;
  const home = path.resolve(cwd, homeFrom(flagHome, env).home);
  let config: { agent?: { workspace?: unknown }; checkpoints?: { enabled?: unknown; maxFileMB?: unknown; maxTotalMB?: unknown; maxEntries?: unknown } } = {};
  try {
    const text = readFileSync(path.join(home, 'config.json'), 'utf8').replace(/^\uFEFF/, '');
    if (text.trim() !== '') config = JSON.parse(text) ?? {};
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined; // the gateway will say what is wrong
  }
  if (typeof config !== 'object' || config.checkpoints?.enabled === false) return undefined;
  const configured = typeof config.agent?.workspace === 'string' ? config.agent.workspace : undefined;
  const flagWorkspace = typeof values.workspace === 'string' ? values.workspace : undefined;
  let root: string;
  try {
    root = realpathSync(path.resolve(cwd, flagWorkspace ?? configured ?? cwd));
  } catch {
    return undefined;
  }
  const dir = path.join(home, 'checkpoints');
  if (existsSync(path.join(dir, 'journal.json'))) return undefined; // the gateway finishes it first
  if (pendingRecords(path.join(dir, 'pending'))) return undefined; // a checkpoint to finish (pending.ts): the gateway does it first
  try {
    const pointer = JSON.parse(readFileSync(path.join(dir, 'workspaces', `${keyHash(root)}.json`), 'utf8')) as { entries?: unknown } | null;
    if (typeof pointer?.entries !== 'number' || pointer.entries < PREFETCH_MIN_ENTRIES) return undefined;
  } catch {
    return undefined;
  }
  return {
    dir,
    root,
    limits: { maxFileBytes: positive(config.checkpoints?.maxFileMB, 10) * MB, maxTotalBytes: positive(config.checkpoints?.maxTotalMB, 1024) * MB, maxEntries: Math.floor(positive(config.checkpoints?.maxEntries, 200_000)) },
    exclude: [dir, home],
    packId: packIdNow(),
  };
}

/**
 * Starts the early capture for `agent ARGV` (bin/agentdesk.mjs) and leaves it on globalThis for the gateway. Never
 * throws: without it the gateway prepares the capture itself when it opens.
 */
export function startEarlyCapture(argv: readonly string[], workerScript: URL): void {
  if (process.env.AGENTDESK_CHECKPOINT_WORKER === '0') return;
  try {
    const input = earlyInput(argv, process.cwd(), process.env);
    if (!input) return;
    const worker = startNicedWorker(workerScript, { workerData: { early: input } });
    const early: EarlyCapture = {
      worker,
      input,
      messages: [],
      listeners: {
        message: (m: unknown) => early.messages.push(m),
        error: (err: unknown) => (early.failed ??= err as Error),
        exit: (code: unknown) => (early.failed ??= new Error(`exit code ${String(code)}`)),
      },
    };
    for (const [event, listener] of Object.entries(early.listeners)) worker.on(event, listener);
    worker.unref(); // a command that never opens a gateway exits without waiting for it
    (globalThis as Record<string, unknown>)[EARLY_CAPTURE_KEY] = early;
  } catch {
    /* no early capture */
  }
}

function pendingRecords(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => n.endsWith('.json') && !n.startsWith('tmp-'));
  } catch {
    return false;
  }
}
