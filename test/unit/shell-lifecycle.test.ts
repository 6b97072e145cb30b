/**
 * main/shell/lifecycle.ts against the electron stub's `app` (its quit sequence follows Electron's: 'before-quit'
 * → windows close → 'will-quit' → 'quit'), for each platform's rules: quitting waits for close() (capped), runs it
 * once, and macOS keeps running with no window and reopens one on 'activate'.
 */
import type * as Electron from 'electron';
import { beforeEach, describe, expect, it } from 'vitest';
import { __stub, app, BrowserWindow } from '../support/electron/electron.mjs';
import { closeWithin, installLifecycle, QUIT_CLOSE_CAP_MS, type LifecycleTimers } from '../../main/shell/lifecycle.js';

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: LifecycleTimers = {
    setTimeout: (fn, ms) => {
      pending.set(next, { fn, ms });
      return next++;
    },
    clearTimeout: (h) => void pending.delete(h as number),
  };
  return {
    timers,
    pending,
    fireAll: () => {
      for (const [id, t] of [...pending]) {
        pending.delete(id);
        t.fn();
      }
    },
  };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise((r) => setImmediate(r));

let exits: number[];
let logs: string[];
beforeEach(() => {
  exits = [];
  logs = [];
  __stub.reset({ onShutdown: (code: number) => void exits.push(code) });
  __stub.ready();
});

function setup(platform: NodeJS.Platform, close: () => Promise<void>, timers = manualTimers().timers) {
  const opened: Electron.BrowserWindow[] = [];
  const calls = { close: 0, open: 0 };
  installLifecycle({
    app,
    platform,
    close: () => {
      calls.close++;
      return close();
    },
    hasWindow: () => BrowserWindow.getAllWindows().length > 0,
    openWindow: () => {
      calls.open++;
      opened.push(new BrowserWindow({ show: true }));
    },
    timers,
    log: (m) => logs.push(m),
  });
  return { calls, opened };
}

describe.each(['linux', 'win32'] as const)('%s: closing the last window quits, after the gateway closed', (platform) => {
  it('prevents the first before-quit, awaits close(), then quits once (exit 0)', async () => {
    const gate = deferred();
    const { calls } = setup(platform, () => gate.promise);
    const win = new BrowserWindow({ show: true });
    __stub.closeWindow(win);
    await flush();
    expect(__stub.state.lifecycle).toEqual(['ready', 'window-all-closed', 'before-quit']);
    expect(calls.close).toBe(1);
    app.quit(); // the person insists: still one close, still waiting
    await flush();
    expect(calls.close).toBe(1);
    expect(exits).toEqual([]);
    gate.resolve();
    await flush();
    expect(__stub.state.lifecycle).toEqual(['ready', 'window-all-closed', 'before-quit', 'before-quit', 'before-quit', 'will-quit', 'quit']);
    expect(exits).toEqual([0]);
  });
});

describe('darwin: the app stays with no window', () => {
  it('closing the last window does not quit; the dock icon reopens a window, once', async () => {
    const { calls } = setup('darwin', async () => undefined);
    __stub.closeWindow(new BrowserWindow({ show: true }));
    await flush();
    expect(__stub.state.lifecycle).toEqual(['ready', 'window-all-closed']);
    expect(exits).toEqual([]);
    __stub.activate();
    expect(calls.open).toBe(1);
    __stub.activate(); // a window is open now
    expect(calls.open).toBe(1);
  });

  it('Cmd+Q closes the gateway first, then the open window, then quits', async () => {
    const gate = deferred();
    const { calls } = setup('darwin', () => gate.promise);
    const win = new BrowserWindow({ show: true });
    app.quit();
    await flush();
    expect(calls.close).toBe(1);
    expect(win.isDestroyed()).toBe(false); // still open while closing
    gate.resolve();
    await flush();
    await flush();
    expect(win.isDestroyed()).toBe(true);
    expect(exits).toEqual([0]);
    expect(__stub.state.lifecycle.slice(-2)).toEqual(['will-quit', 'quit']);
  });

  it('no window is reopened once quitting has begun', async () => {
    const { calls } = setup('darwin', () => new Promise(() => undefined));
    app.quit();
    __stub.activate();
    expect(calls.open).toBe(0);
  });
});

describe('a close that does not finish', () => {
  it(`quits after the cap (${QUIT_CLOSE_CAP_MS} ms) and says why`, async () => {
    const clock = manualTimers();
    setup('linux', () => new Promise(() => undefined), clock.timers);
    app.quit();
    await flush();
    expect([...clock.pending.values()].map((t) => t.ms)).toEqual([QUIT_CLOSE_CAP_MS]);
    expect(exits).toEqual([]);
    clock.fireAll();
    await flush();
    expect(exits).toEqual([0]);
    expect(logs).toEqual(['closing took longer than 5 s; quitting anyway']);
  });

  it('a close that fails is logged and the app still quits', async () => {
    setup('linux', async () => {
      throw new Error('disk full');
    });
    app.quit();
    await flush();
    await flush();
    expect(exits).toEqual([0]);
    expect(logs).toEqual(['closing failed: disk full']);
  });
});

describe('closeWithin', () => {
  it.each([
    ['finishes in time', () => Promise.resolve(), true, 0],
    ['fails', () => Promise.reject(new Error('x')), false, 0],
  ] as const)('%s → %s, the cap timer cleared', async (_name, close, expected, left) => {
    const clock = manualTimers();
    expect(await closeWithin(close, 1000, clock.timers, () => undefined)).toBe(expected);
    expect(clock.pending.size).toBe(left);
  });
});
