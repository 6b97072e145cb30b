import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default: one file at a time per spare core (one on a 2-core CI machine). Two at a time on 2 cores cut
    // the suite to ~6.5 min here, but a clean-clone CI run then timed out two Chromium e2e files (a 20 000-message
    // chat, a 90 s session walk) that pass alone: CI's result matters more than its minutes.
    maxWorkers: Math.max(1, availableParallelism() - 1),
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
