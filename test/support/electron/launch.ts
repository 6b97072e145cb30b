/**
 * Runs the BUILT desktop app (out/main/index.js) in a child Node process with `electron` resolved to the stub
 * (register.mjs) and the real node_modules (electron-store 11.0.2, conf, keytar …): what Electron would run,
 * minus Chromium. The test drives it like Playwright drives Electron: `evaluate(fn, arg)` runs `fn` in the app's
 * process with the stubbed electron module.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ElectronStub } from './electron.mjs';

const HERE = import.meta.dirname;
export const STUB_REGISTER = join(HERE, 'register.mjs');
const RUN_MAIN = join(HERE, 'run-main.mjs');

export interface StubbedApp {
  child: ChildProcess;
  /** Runs `fn(electronStub, arg)` in the app's process; `fn` must not close over anything (it is sent as source). */
  evaluate<R, A = undefined>(fn: (electron: ElectronStub, arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>>;
  /** Like evaluate, without waiting for an answer (for calls that end the process, e.g. app.quit()). */
  fire<A = undefined>(fn: (electron: ElectronStub, arg: A) => unknown, arg?: A): void;
  /** Resolves when the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): { stdout: string; stderr: string };
  /** Ends the process if it is still running (SIGKILL) and waits for it. */
  kill(): Promise<void>;
}

export function launchStubbedApp(main: string, env: NodeJS.ProcessEnv): StubbedApp {
  const child = fork(RUN_MAIN, [main], {
    env,
    execArgv: ['--import', STUB_REGISTER],
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const p of pending.values()) p.reject(new Error(`the app exited (code ${code}, signal ${signal}) before answering; stderr:\n${stderr}`));
      pending.clear();
      resolve({ code, signal });
    });
  });
  child.on('message', (msg: { id: number; ok: boolean; value?: unknown; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(new Error(msg.error));
  });
  child.on('error', () => undefined); // a send racing the exit: the pending request is rejected on 'exit'
  const send = (fn: string, arg: unknown, id: number) => {
    if (child.connected) child.send({ id, fn, arg }, () => undefined);
  };
  return {
    child,
    evaluate(fn, arg) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`the app has exited; stderr:\n${stderr}`));
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        send(fn.toString(), arg, id);
      });
    },
    fire(fn, arg) {
      send(fn.toString(), arg, 0);
    },
    exited,
    output: () => ({ stdout, stderr }),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls `probe` in the app until it returns a value other than undefined (or the app exits / time runs out). */
export async function waitInApp<R, A = undefined>(
  app: StubbedApp,
  probe: (electron: ElectronStub, arg: A) => R | undefined,
  arg?: A,
  timeoutMs = 15_000,
): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void app.exited.then(() => (ended = true));
  for (;;) {
    if (ended) throw new Error(`the app exited while waiting; stderr:\n${app.output().stderr}`);
    const value = await app.evaluate(probe as (e: ElectronStub, a: A) => R | undefined, arg as A).catch((err: Error) => {
      if (ended) return undefined;
      throw err;
    });
    if (value !== undefined) return value as R;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms; stderr:\n${app.output().stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
