/**
 * X1 lifecycle: the stdio transport of an MCP server, with a process group and a parent-death check, so that no
 * server outlives AgentDesk — not even after SIGKILL of the app, the CLI or the gateway (the SDK's own
 * StdioClientTransport spawns the server in our process group and relies on the server noticing stdin's end).
 *
 * On Unix the server is started through `/bin/sh` as the leader of its own process group. Beside it, in the same
 * group, a watcher blocks reading a pipe whose other end only we hold (fd 3): when we die, whatever the cause, the
 * kernel closes our end, the read returns, and the watcher sends SIGTERM to the group (then SIGKILL after 2 s).
 * A normal close ends the group itself: stdin closed, SIGTERM to the group, SIGKILL after a grace period. A
 * synchronous exit handler sends SIGTERM to every live group when the process exits through `process.exit`.
 * On Windows (no process groups, no sh) the server is spawned directly and ended with the process tree's root.
 *
 * Messages are newline-delimited JSON-RPC, read and written with the SDK's own ReadBuffer / serializeMessage.
 * stderr is kept (the last lines) for the status shown in Settings and in error messages.
 */
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

export interface StdioParams {
  command: string;
  args: string[];
  /** The whole environment of the server (already scrubbed: nothing is inherited beyond it). */
  env: Record<string, string>;
  cwd?: string;
  /** Called with each stderr chunk (kept as the last lines by the caller). */
  onStderr?: (text: string) => void;
}

/**
 * stdio framing: one JSON-RPC message per line (the SDK's own ReadBuffer does the same). Kept here so a server can
 * be spawned before the SDK has loaded: the two then overlap (the SDK's ~65 ms load and the server's start-up).
 *
 * Linear in what the server sends: each chunk is searched once for a newline byte (one never occurs inside a UTF-8
 * sequence) and the pieces of a line are joined once, when it ends. (Appending to one string and searching it from
 * its start on every chunk made a 60 MB line in 64 KB pieces freeze the process for half a minute.) A line over
 * `maxLineBytes` is dropped as it arrives — never held whole — and reported once; the call it answered then ends at
 * its timeout.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineReader {
  private pieces: Buffer[] = [];
  private pending = 0;
  /** Inside a line already over the cap: its bytes are dropped up to its newline. */
  private skipping = false;

  constructor(private readonly maxLineBytes: number = MAX_LINE_BYTES) {}

  /** Appends a chunk; returns the complete lines' messages (and the start of the first bad line, if any). */
  push(chunk: Buffer): { messages: JSONRPCMessage[]; bad?: string } {
    const messages: JSONRPCMessage[] = [];
    let bad: string | undefined;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.skipping && end > start) {
        if (this.pending + (end - start) > this.maxLineBytes) {
          this.clear();
          this.skipping = true;
          bad ??= `a message over ${Math.round(this.maxLineBytes / 1024 / 1024)} MB (dropped)`;
        } else {
          this.pieces.push(chunk.subarray(start, end));
          this.pending += end - start;
        }
      }
      if (nl === -1) break;
      if (!this.skipping && this.pending > 0) {
        const line = (this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.pending)).toString('utf8').replace(/\r$/, '');
        if (line.trim()) {
          try {
            messages.push(JSON.parse(line) as JSONRPCMessage);
          } catch {
            bad ??= line.slice(0, 200);
          }
        }
      }
      this.clear();
      start = nl + 1;
    }
    return { messages, ...(bad !== undefined ? { bad } : {}) };
  }

  clear(): void {
    this.pieces = [];
    this.pending = 0;
    this.skipping = false;
  }
}

const GRACE_MS = 2000;
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Sends `signal` to the server's process group (Unix) or the process (Windows); never throws. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // `process.exit` (the CLI's Ctrl-C path, the app quitting) runs only synchronous code: signal every live group.
  process.on('exit', () => {
    for (const child of live) signalGroup(child, 'SIGTERM');
  });
}

/**
 * The watcher (same process group, stdio on /dev/null, ignoring TERM itself until the group is told), then `exec`
 * of the server with fd 3 closed, so the server keeps the pid and leads the group.
 */
const LAUNCHER =
  '(trap "" TERM; read -r _ <&3; kill -TERM 0 2>/dev/null; sleep 2; kill -KILL 0 2>/dev/null) </dev/null >/dev/null 2>&1 & exec 3<&-; exec "$@"';

/**
 * The program `command` names, looked up as the shell would (PATH of the server's environment), so that a missing
 * one is reported as "command not found" before anything is spawned. Throws an ENOENT / EACCES error.
 */
export function resolveCommand(command: string, env: Readonly<Record<string, string | undefined>>, cwd: string = process.cwd()): string {
  const fail = (code: 'ENOENT' | 'EACCES'): never => {
    throw Object.assign(new Error(`${code === 'ENOENT' ? 'command not found' : 'command not executable'}: ${command}`), { code });
  };
  const usable = (p: string): boolean => {
    try {
      if (!statSync(p).isFile()) return false;
      if (process.platform !== 'win32') accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/') || (process.platform === 'win32' && command.includes('\\'))) {
    const p = isAbsolute(command) ? command : resolve(cwd, command);
    try {
      statSync(p);
    } catch {
      return fail('ENOENT');
    }
    return usable(p) ? p : fail('EACCES');
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').concat('') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const ext of exts) if (usable(join(dir, command + ext))) return join(dir, command + ext);
  }
  return fail('ENOENT');
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | undefined;
  private readonly reader = new LineReader();
  private closed = false;
  private exited: Promise<void> = Promise.resolve();
  private started: Promise<void> | undefined;

  constructor(private readonly params: StdioParams) {}

  /** Spawns the server (once: a second call, e.g. the client's own, waits for the first). */
  start(): Promise<void> {
    this.started ??= this.spawn();
    return this.started;
  }

  private async spawn(): Promise<void> {
    installExitHook();
    const unix = process.platform !== 'win32';
    resolveCommand(this.params.command, this.params.env, this.params.cwd); // "command not found" before spawning
    const [cmd, argv] = unix ? ['/bin/sh', ['-c', LAUNCHER, 'agentdesk-mcp', this.params.command, ...this.params.args]] : [this.params.command, this.params.args];
    const { spawn } = await import('node:child_process'); // loaded when a server starts, not with the gateway
    return new Promise((resolve, reject) => {
      const child = spawn(cmd as string, argv as string[], {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: unix ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
        detached: unix, // its own process group
        windowsHide: true,
      });
      this.child = child;
      live.add(child);
      this.exited = new Promise((r) =>
        child.once('exit', () => {
          // Our end of the watcher's pipe: closing it lets the watcher end the group (anything the server left).
          (child.stdio[3] as Writable | null)?.destroy();
          r();
        }),
      );
      child.once('error', (err) => {
        live.delete(child);
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        live.delete(child);
        this.child = undefined;
        if (!this.closed) {
          this.closed = true;
          this.onclose?.();
        }
      });
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.on('data', (chunk: Buffer) => {
        const { messages, bad } = this.reader.push(chunk);
        for (const m of messages) this.onmessage?.(m);
        // A server printing something else to stdout: reported, not fatal (as the SDK's transport does).
        if (bad !== undefined) this.onerror?.(new Error(`not a JSON-RPC message on stdout: ${bad}`));
      });
      child.stderr!.setEncoding('utf8');
      (child.stderr as Readable).on('data', (text: string) => this.params.onStderr?.(text));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('The MCP server is not running.'));
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Ends the server and everything it started: stdin closed, SIGTERM to the group, SIGKILL after the grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), GRACE_MS);
      await this.exited;
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL'); // anything the server left in its group
    }
    this.reader.clear();
    if (!this.closed) {
      this.closed = true;
      this.onclose?.();
    }
  }
}
