/**
 * Prints one closing line "N passed, N failed, N skipped" after the run, so any CI that reads plain summary
 * lines (not only vitest's own format) sees the counts — and before it one plain " FAIL  test/…" line per failed
 * file, without vitest's project label ("node", "chromium"), so a script that picks the failed files out of the
 * log (to re-run them) finds them.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failedFiles = new Set<string>();
    for (const mod of testModules) {
      if (mod.state() === 'failed') failedFiles.add(mod.relativeModuleId);
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    failed += unhandledErrors.length;
    for (const file of failedFiles) process.stdout.write(`\n FAIL  ${file}`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
