/**
 * The app's lifecycle (D1): when to quit, what quitting waits for, and reopening a window on macOS.
 *
 * Quitting (Cmd+Q, File › Quit, closing the last window off macOS, the OS asking) emits 'before-quit' first. The
 * gateway must close before the process ends — running runs are aborted and their transcripts finished, undo-window
 * deletions purged, gateway_stop hooks run, the subagent control file removed — and that is asynchronous while
 * Electron exits as soon as 'will-quit' returns. So the first 'before-quit' is prevented, the close is awaited (at
 * most `capMs`, so a stuck hook cannot keep the app from quitting), and app.quit() is called again, which then
 * goes through. (app.exit() — the start-up failure path — skips all of this, as documented.)
 */
import type { App } from 'electron';
import { quitsWhenAllWindowsClosed } from './platform.js';

export const QUIT_CLOSE_CAP_MS = 5_000;

export interface LifecycleTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface LifecycleOptions {
  app: Pick<App, 'on' | 'quit'>;
  platform: NodeJS.Platform;
  /** Closes the gateway (and whatever else must finish before the process ends). */
  close: () => Promise<void>;
  /** Whether a main window is open. */
  hasWindow: () => boolean;
  /** Opens the main window (macOS: the dock icon clicked with no window open). */
  openWindow: () => void;
  capMs?: number;
  timers?: LifecycleTimers;
  log?: (message: string) => void;
}

const nodeTimers: LifecycleTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Resolves true when `close` finished within `ms`, false when the cap came first (or close failed: logged). */
export function closeWithin(close: () => Promise<void>, ms: number, timers: LifecycleTimers, log: (m: string) => void): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(() => {
      log(`closing took longer than ${ms / 1000} s; quitting anyway`);
      resolve(false);
    }, ms);
    close().then(
      () => {
        timers.clearTimeout(timer);
        resolve(true);
      },
      (err: unknown) => {
        timers.clearTimeout(timer);
        log(`closing failed: ${err instanceof Error ? err.message : String(err)}`);
        resolve(false);
      },
    );
  });
}

export function installLifecycle(opts: LifecycleOptions): void {
  const { app, platform } = opts;
  const cap = opts.capMs ?? QUIT_CLOSE_CAP_MS;
  const timers = opts.timers ?? nodeTimers;
  const log = opts.log ?? ((m: string) => console.error(`AgentDesk: ${m}`));
  let phase: 'running' | 'closing' | 'closed' = 'running';

  app.on('window-all-closed', () => {
    if (quitsWhenAllWindowsClosed(platform)) app.quit();
  });
  app.on('activate', () => {
    if (phase === 'running' && !opts.hasWindow()) opts.openWindow();
  });
  app.on('before-quit', (event) => {
    if (phase === 'closed') return;
    event.preventDefault();
    if (phase === 'closing') return;
    phase = 'closing';
    void closeWithin(opts.close, cap, timers, log).then(() => {
      phase = 'closed';
      app.quit();
    });
  });
}
