/**
 * bin/wasm-baseline.mjs: the command line's `--liftoff-only` set at the first fetch(), not at start-up, and the code
 * cache compiled and saved under the start-up flags. V8 exposes no flag's value, so the flags are seen the way they
 * matter here, across processes: a code cache made in one process is taken by a fresh one only if both ran under the
 * same flags (V8's flag hash). Each case runs in its own process (flags are process-wide) with a real fetch() against
 * a local HTTP server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const MODULE = new URL('../../bin/wasm-baseline.mjs', import.meta.url).href;
const SOURCE = 'function probe(a) { return a + 1; } probe(1);';

const server = createServer((_req, res) => res.end('pong'));
let url = '';
const dir = mkdtempSync(path.join(tmpdir(), 'agentdesk-wasm-'));
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * In a fresh process: installs the hook, fetches `fetches` times (printing each reply), then writes a code cache of
 * SOURCE to `file` — made plainly, or inside withStartupFlags when `startup`.
 */
async function makeCache(file: string, fetches: number, startup: boolean): Promise<string> {
  const script = `
    import vm from 'node:vm';
    import { writeFileSync } from 'node:fs';
    import { liftoffBeforeFirstFetch, withStartupFlags } from ${JSON.stringify(MODULE)};
    liftoffBeforeFirstFetch();
    for (let i = 0; i < ${fetches}; i++) process.stdout.write((await (await fetch(${JSON.stringify(url)})).text()) + ' ');
    const script = new vm.Script(${JSON.stringify(SOURCE)}, { filename: 'probe.js' });
    const make = () => script.createCachedData();
    writeFileSync(${JSON.stringify(file)}, ${startup} ? withStartupFlags(make) : make());`;
  return (await run(process.execPath, ['--input-type=module', '-e', script])).stdout;
}

/** Whether a fresh process, at start-up (no flag changed), refuses the cache in `file`. */
async function refusedAtStartup(file: string): Promise<boolean> {
  const script = `
    const vm = require('node:vm');
    const cachedData = require('node:fs').readFileSync(${JSON.stringify(file)});
    process.stdout.write(String(new vm.Script(${JSON.stringify(SOURCE)}, { filename: 'probe.js', cachedData }).cachedDataRejected));`;
  return (await run(process.execPath, ['-e', script])).stdout === 'true';
}

describe('the command line sets --liftoff-only at the first fetch()', () => {
  it('changes no flag before the first fetch', async () => {
    const file = path.join(dir, 'before.cache');
    expect(await makeCache(file, 0, false)).toBe('');
    expect(await refusedAtStartup(file)).toBe(false);
  });

  it('sets it at the first fetch, which answers as before', async () => {
    const file = path.join(dir, 'after.cache');
    expect(await makeCache(file, 2, false)).toBe('pong pong ');
    expect(await refusedAtStartup(file)).toBe(true); // made under other flags
  });

  it("its start-up probe tells an undo that gives the start-up flags back from one that leaves an implied flag set", async () => {
    const undoes = async (undo: string) => {
      const script = `import { undoes } from ${JSON.stringify(MODULE)}; process.stdout.write(String(undoes(${JSON.stringify(undo)})));`;
      return (await run(process.execPath, ['--input-type=module', '-e', script])).stdout;
    };
    expect(await undoes('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering')).toBe('true'); // the bin's UNDO
    expect(await undoes('--no-liftoff-only')).toBe('false'); // the flags it implied stay set: the hash differs
  });

  it('makes a code cache under the start-up flags after it, which the next process takes', async () => {
    const file = path.join(dir, 'startup.cache');
    expect(await makeCache(file, 1, true)).toBe('pong ');
    expect(await refusedAtStartup(file)).toBe(false);
  });
});
