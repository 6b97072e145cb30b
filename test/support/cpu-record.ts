/**
 * Per-file CPU, for finding where the suite's time goes (vitest reports only wall time, and on a busy 2-core machine
 * wall time mostly says what else was running). With AGENTDESK_TEST_CPU_LOG=FILE (test/run.sh sets it), each test file
 * appends one line to FILE when it ends: its path, its wall time and the CPU (user + system) its worker used meanwhile,
 * its ended child processes included (CLI runs, web.js, Chromium: reaped children count in /proc's cutime/cstime).
 * test/support/cpu-report.mjs prints the table. A setup file (vitest.config.ts), so every file is counted.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

const log = process.env.AGENTDESK_TEST_CPU_LOG;

/** utime + stime + cutime + cstime of this process, in clock ticks (fields 14–17 of /proc/self/stat). */
function ticks(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return undefined;
  }
}

if (log) {
  const startTicks = ticks();
  const startMs = Date.now();
  afterAll(() => {
    const end = ticks();
    if (startTicks === undefined || end === undefined) return;
    const file = expect.getState().testPath ?? '?';
    // Linux reports these fields in USER_HZ, 100 per second on every architecture.
    const line = { file: file.slice(file.indexOf('/test/') + 1), wallMs: Date.now() - startMs, cpuMs: (end - startTicks) * 10, pid: process.pid };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
