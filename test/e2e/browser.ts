/**
 * The Chromium the end-to-end files drive. The Chromium project's global setup (test/e2e/browser-server.ts) starts
 * one Debian Chromium for the whole run; each file connects to it (its pages, each in a context of its own, close
 * with the connection), instead of launching its own: a launch and close cost ~4 CPU-seconds on this 2-core
 * machine, and the suite is CPU-bound. A file that needs other flags, or code outside vitest, launches its own.
 */
import type { Browser } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './helpers.js';

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  let shared: string | undefined;
  try {
    shared = inject('chromiumWsEndpoint');
  } catch {
    shared = undefined; // not inside vitest
  }
  if (shared && extraArgs.length === 0) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
