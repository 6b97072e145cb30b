import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const E2E = 'test/e2e/**/*.test.ts';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // expect.poll waits for what the app does in its own time (a notice, a row, a file): vitest's default of 1 s was
    // short on a loaded 2-core machine (a 5 000-message chat's earlier part took longer to come in). A poll that
    // passes returns at once; only a failing one waits this long.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['./test/support/cpu-record.ts'],
    // Two projects. Most of the Node files wait on child processes (CLI, gateway, fake servers), so they run two
    // at a time even on 2 cores (vitest's default there is one). The Chromium end-to-end files run one at a time:
    // at two at a time a clean-clone CI run timed out two of them (a 20 000-message chat, a 90 s session walk) that
    // pass alone. The whole suite (`npm test`, test/run.sh) runs the two projects side by side, as two vitest
    // processes; a run of chosen files is one vitest, the Node group first, then the Chromium one (groupOrder).
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [E2E],
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'chromium',
          include: [E2E],
          // The files run one after another in one worker that keeps its loaded modules (playwright-core, the helpers):
          // a fresh process and a fresh playwright-core per file cost ~1 CPU-second each, on the Chromium files' serial
          // path. Each file still starts its own server, fake provider and browser contexts (and closes them).
          isolate: false,
          // One Chromium for the whole project, which the files connect to (test/e2e/browser.ts).
          globalSetup: ['./test/e2e/browser-server.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
