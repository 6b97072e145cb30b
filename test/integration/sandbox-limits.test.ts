/**
 * X5 resource limits, with real bubblewrap and the real kernel, as this user (root in CI) and as an unprivileged
 * user: a storm of 1 000 processes is stopped (by the process limit where the kernel applies it, by exec's
 * watchdog where it does not — root), a 4 GB allocation fails, and everyday programs still run under the limits.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecTool } from '../../main/tools/exec.js';
import { DEFAULT_PROCESSES, defaultLimits } from '../../main/tools/sandbox/limits.js';
import { detectSandbox } from '../../main/tools/sandbox/index.js';
import { bundleForNobody, canRunAsNobody, nobodyFolder, nodeAsNobody } from '../support/as-nobody.js';

const status = await detectSandbox();
const ready = status.kind === 'bwrap';
const PYTHON = '/usr/bin/python3';

let ws = '';
beforeAll(async () => {
  ws = path.join(await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-limits-'))), 'ws');
  await mkdir(ws);
});
afterAll(async () => {
  await rm(path.dirname(ws), { recursive: true, force: true });
});

const count = (marker: string): number => {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};
/** 1 000 children that sleep (their command line carries the marker), then the parent waits a little and reports. */
const STORM = (marker: string) =>
  `${PYTHON} -c "
import os, sys, time
n = 0
for i in range(1000):
    try:
        pid = os.fork()
    except OSError as e:
        print('fork failed after', n, e.strerror, flush=True)
        break
    if pid == 0:
        os.execv('/bin/sleep', ['sleep', '${marker}'])
    n += 1
time.sleep(3)
print('forked', n, flush=True)
"`;
/** Stopped: either the sandbox was killed for passing its limit, or forks failed well before 1 000. */
function expectStopped(out: string): void {
  expect(out).not.toContain('forked 1000');
  const failedAt = /fork failed after (\d+)/.exec(out)?.[1];
  if (failedAt !== undefined) expect(Number(failedAt)).toBeLessThanOrEqual(DEFAULT_PROCESSES);
  else expect(out).toMatch(/killed: more than 512 processes at once/);
}
const ALLOC = [
  `${PYTHON} -c "b = bytearray(4 * 1024**3); print('allocated')" 2>&1 | tail -1`,
  `node -e "const b = Buffer.alloc(4 * 1024 ** 3, 1); console.log('allocated', b.length)" 2>&1 | grep -m1 -E "allocated|RangeError|Error"`,
  `${PYTHON} -c "b = bytearray(200 * 1024**2); print('small ok')"`,
  'node -e "console.log(\'node ok\')"; npm --version >/dev/null && echo npm ok',
].join('; ');

describe.runIf(ready && existsSync(PYTHON))(`exec's limits, started by this user (uid ${process.getuid?.()})`, () => {
  it(`a storm of 1 000 processes is stopped (limit ${DEFAULT_PROCESSES}) and leaves nothing behind`, async () => {
    const marker = `612.${process.pid}`;
    const exec = createExecTool({ sandbox: { enabled: true, network: true, hide: [] }, killGraceMs: 300 });
    const started = Date.now();
    const out = await exec.execute({ command: STORM(marker), timeoutSeconds: 60 }, { workspace: ws, signal: new AbortController().signal }).then(
      (r) => r.content,
      (e: Error) => e.message,
    );
    expectStopped(out);
    // well before the command's own 60 s timeout (the storm itself loads a 2-core machine: 21.6 s was seen)
    expect(Date.now() - started).toBeLessThan(40_000);
    await expect.poll(() => count(`sleep ${marker}`), { timeout: 10_000 }).toBe(0);
  }, 90_000);

  it('a 4 GB allocation fails; 200 MB, node and npm still work', async () => {
    const exec = createExecTool({ sandbox: { enabled: true, network: true, hide: [] } });
    const out = (await exec.execute({ command: ALLOC }, { workspace: ws, signal: new AbortController().signal })).content;
    const lines = out.split('\n');
    expect(lines[0]).toBe('MemoryError');
    expect(lines[1]).toMatch(/RangeError|Error|memory/i);
    expect(out).not.toMatch(/^allocated/m);
    expect(out).toContain('small ok\nnode ok\nnpm ok');
    expect(defaultLimits().memoryMiB).toBeLessThan(4096);
  }, 60_000);
});

describe.runIf(ready)('memory the per-process limit does not see: the RAM-backed /tmp and hidden home', () => {
  it('writing past the memory limit into /tmp or the home folder fails (no space)', async () => {
    const exec = createExecTool({ sandbox: { enabled: true, network: false, hide: [], limits: { memoryMiB: 64 } } });
    const out = (
      await exec.execute(
        { command: 'head -c 100M /dev/zero > /tmp/big 2>&1; echo "tmp=$?"; head -c 100M /dev/zero > "$HOME/big" 2>&1; echo "home=$?"; head -c 10M /dev/zero > /tmp/small; echo "small=$?"' },
        { workspace: ws, signal: new AbortController().signal },
      )
    ).content;
    expect(out).toMatch(/tmp=1/);
    expect(out).toMatch(/home=1/);
    expect(out).toMatch(/No space left on device/);
    expect(out).toMatch(/small=1/); // /tmp is full now: the 64 MiB are used
  }, 60_000);

  it.runIf(existsSync(PYTHON))('four processes each under the per-process limit but over the total together: the sandbox is ended', async () => {
    const exec = createExecTool({ sandbox: { enabled: true, network: false, hide: [], limits: { memoryMiB: 128 } }, killGraceMs: 300 });
    // each would hold its 100 MiB for 30 s: ended well before that is the sandbox's doing, not the command's end
    const hog = `${PYTHON} -c "import time; b = b'x' * (100 * 1024**2); time.sleep(30); print('kept')"`;
    const started = Date.now();
    const out = await exec.execute({ command: `${hog} & ${hog} & ${hog} & ${hog} & wait; echo survived` }, { workspace: ws, signal: new AbortController().signal }).then(
      (r) => r.content,
      (e: Error) => e.message,
    );
    expect(out).not.toContain('kept');
    expect(out).toMatch(/killed: its processes used more than 256 MiB of memory together/);
    expect(Date.now() - started).toBeLessThan(20_000);
    // One such process alone is fine.
    const one = (await exec.execute({ command: hog.replace('time.sleep(30)', 'time.sleep(0.5)') }, { workspace: ws, signal: new AbortController().signal })).content;
    expect(one).toMatch(/^kept\n/);
  }, 60_000);
});

describe.runIf(ready && canRunAsNobody && existsSync(PYTHON))('the same, started by an unprivileged user (uid 65534)', () => {
  let script = '';
  let dispose: () => Promise<void> = async () => undefined;
  let nobodyWs: { dir: string; dispose(): Promise<void> } | undefined;
  beforeAll(async () => {
    ({ script, dispose } = await bundleForNobody('test/support/nobody-exec-driver.ts'));
    nobodyWs = await nobodyFolder('limits-nobody');
  }, 120_000);
  afterAll(async () => {
    await dispose();
    await nobodyWs?.dispose();
  });
  it('the storm is stopped, the 4 GB allocation fails, everyday programs run', async () => {
    const marker = `613.${process.pid}`;
    const out = JSON.parse(
      await nodeAsNobody(script, [JSON.stringify({ workspace: nobodyWs!.dir, network: true, commands: [STORM(marker), ALLOC], timeoutSeconds: 60 })], { timeoutMs: 90_000 }),
    ) as { results: { content: string }[] };
    const [storm, alloc] = out.results.map((r) => r.content);
    expectStopped(storm!);
    expect(alloc!.split('\n')[0]).toBe('MemoryError');
    expect(alloc).toContain('small ok\nnode ok\nnpm ok');
    await expect.poll(() => count(`sleep ${marker}`), { timeout: 10_000 }).toBe(0);
  }, 120_000);
});
