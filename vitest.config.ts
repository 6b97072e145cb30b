import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time even on a 2-core machine (CI): most of the suite's time is spent waiting on child
    // processes (the CLI, the gateway, Chromium) and the fake servers, so a second file uses the idle core. vitest's
    // own default (cores - 1) ran the whole suite one file after another there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
