/**
 * Global setup of the Chromium project (vitest.config.ts): one Debian Chromium with the flags every end-to-end file
 * uses, served over Playwright's WebSocket for the files to connect to (test/e2e/browser.ts), closed after the run.
 * Each file still gets fresh contexts (browser.newPage), so nothing a page stores outlives it.
 */
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './helpers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumWsEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { chromium } = await import('playwright-core');
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  project.provide('chromiumWsEndpoint', server.wsEndpoint());
  return () => server.close();
}
