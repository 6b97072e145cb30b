/**
 * X2: the capture a CLI turn starts before its bundle loads (early.ts, started by bin/agentdesk.mjs) and its adoption
 * by the gateway's prefetcher (prefetch.ts), with a real worker thread (the worker's TypeScript source through tsx).
 *
 * - earlyInput guesses the gateway's capture from the arguments and config.json, and starts nothing when there is
 *   nothing worth starting (no earlier checkpoint of 2 000 entries, checkpoints off, an interrupted operation, a
 *   gateway command, --help, a config.json it cannot read).
 * - For the usual cases its guess is exactly the gateway's own input (the store opened as open.ts opens it).
 * - The prefetcher takes the capture only when the inputs are the same; otherwise it is thrown away (its temporary
 *   pack removed) and the capture is prepared again on the same thread. Never claimed: removed at close.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_WORKER_NICE, EARLY_CAPTURE_KEY, earlyInput, startNicedWorker, type EarlyCapture, type EarlyInput } from '../../main/checkpoints/early.js';
import { settingsFrom } from '../../main/checkpoints/open.js';
import { pointerFile } from '../../main/checkpoints/prepare.js';
import { CheckpointPrefetcher } from '../../main/checkpoints/prefetch.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { parseConfig } from '../../main/engine/config/load.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpe');

/** The store of `home` as the gateway opens it (open.ts). */
const gatewayStore = (home: string, configText = '') => {
  const config = parseConfig(configText);
  return new CheckpointStore(CheckpointStore.dirIn(home), { settings: () => settingsFrom(config), exclude: [home], onNotice: () => {} });
};
const writePointer = (home: string, root: string, entries: number) => {
  const file = pointerFile(CheckpointStore.dirIn(home), root);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ root, tree: 'a'.repeat(64), entries }));
};
const fields = (i: { dir: string; root: string; limits: EarlyInput['limits']; exclude: readonly string[] }) => ({
  dir: i.dir,
  root: i.root,
  maxFileBytes: i.limits.maxFileBytes,
  maxTotalBytes: i.limits.maxTotalBytes,
  exclude: i.exclude,
});

describe('earlyInput: what the agent command will capture first', () => {
  const cwd = tmp('cwd');
  const ws = path.join(cwd, 'project');
  mkdirSync(ws);
  symlinkSync(ws, path.join(cwd, 'link'));
  const home = path.join(cwd, 'home');
  mkdirSync(home);
  writePointer(home, ws, 2500);

  it('is the gateway own input: --home relative to the folder it runs in, the workspace by its real path, default limits', () => {
    const input = earlyInput(['--home', 'home', '--workspace', 'link', '--session', 's', '--message', 'go'], cwd, {});
    expect(input).toBeDefined();
    expect(input!.packId).toMatch(/^[0-9a-z]+-[0-9a-f]{12}$/);
    expect(fields(input!)).toEqual(fields(gatewayStore(home).prepareInput(ws)));
  });

  it('reads the limits and the workspace from config.json, and the data folder from AGENTDESK_HOME', () => {
    const other = tmp('home2');
    const config = JSON.stringify({ agent: { workspace: ws }, checkpoints: { maxFileMB: 2, maxTotalMB: 50 } });
    writeFileSync(path.join(other, 'config.json'), `\uFEFF${config}`);
    writePointer(other, ws, 2000);
    const input = earlyInput(['-m', 'go'], cwd, { AGENTDESK_HOME: other });
    expect(fields(input!)).toEqual(fields(gatewayStore(other, config).prepareInput(ws)));
    expect(input!.limits).toEqual({ maxFileBytes: 2 * 1024 * 1024, maxTotalBytes: 50 * 1024 * 1024, maxEntries: 200_000 });
  });

  it('starts nothing when nothing is worth starting', () => {
    const base = ['--home', home, '--workspace', ws];
    const off = tmp('off');
    writeFileSync(path.join(off, 'config.json'), JSON.stringify({ checkpoints: { enabled: false } }));
    writePointer(off, ws, 5000);
    const bad = tmp('bad');
    writeFileSync(path.join(bad, 'config.json'), '{ not json');
    writePointer(bad, ws, 5000);
    const small = tmp('small');
    writePointer(small, ws, 1999);
    const journal = tmp('journal');
    writePointer(journal, ws, 5000);
    writeFileSync(path.join(journal, 'checkpoints', 'journal.json'), '{}');
    const cases: Array<[string, string[]]> = [
      ['no message', base],
      ['a gateway command', [...base, '--message', '  /stop']],
      ['--help', [...base, '--help', '--message', 'go']],
      ['checkpoints off', ['--home', off, '--workspace', ws, '--message', 'go']],
      ['an unreadable config.json', ['--home', bad, '--workspace', ws, '--message', 'go']],
      ['a folder never checkpointed', ['--home', home, '--workspace', cwd, '--message', 'go']],
      ['a small folder', ['--home', small, '--workspace', ws, '--message', 'go']],
      ['an interrupted operation', ['--home', journal, '--workspace', ws, '--message', 'go']],
      ['a workspace that does not exist', ['--home', home, '--workspace', 'nowhere', '--message', 'go']],
    ];
    for (const [why, argv] of cases) expect(earlyInput(argv, cwd, {}), why).toBeUndefined();
  });
});

const WORKER_SOURCE = new URL('../../main/checkpoints/checkpoint-worker.ts', import.meta.url).href;

/** What the bin leaves: the worker (from its source) started on `input`, its messages buffered until adoption. */
function leaveEarlyCapture(input: EarlyInput): EarlyCapture {
  const code = `const { register } = await import('tsx/esm/api'); register(); await import(${JSON.stringify(WORKER_SOURCE)});`;
  const worker = new Worker(code, { eval: true, workerData: { early: input } });
  const early: EarlyCapture = {
    worker,
    input,
    messages: [],
    listeners: { message: (m) => early.messages.push(m), error: (e) => (early.failed ??= e as Error), exit: () => undefined },
  };
  for (const [event, listener] of Object.entries(early.listeners)) worker.on(event, listener);
  (globalThis as Record<string, unknown>)[EARLY_CAPTURE_KEY] = early;
  return early;
}

async function folder() {
  const root = tmp('ws');
  for (let i = 0; i < 10; i++) writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  const home = tmp('home');
  const store = gatewayStore(home);
  await store.snapshot({ sessionKey: 'first', root, label: 'first' });
  writeFileSync(path.join(root, 'new.txt'), 'new since the first checkpoint\n'); // the early capture writes a pack
  const tmpPacks = () => readdirSync(store.packsDir).filter((n) => n.startsWith('tmp-'));
  return { root, home, store, tmpPacks };
}

const waitFor = async (ok: () => boolean) => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(ok()).toBe(true);
};

describe('the gateway adopts the early capture', () => {
  it('takes it when it asked for exactly the gateway capture, and commits it at the first change', async () => {
    const f = await folder();
    const early = leaveEarlyCapture({ ...f.store.prepareInput(f.root), packId: 'mx00early-0123456789ab' } as EarlyInput);
    const prefetch = new CheckpointPrefetcher({ store: f.store, minEntries: 1 });
    try {
      expect((globalThis as Record<string, unknown>)[EARLY_CAPTURE_KEY]).toBeUndefined();
      expect(prefetch.startEarly(f.root)).toBe(true);
      expect(prefetch.start('r1', f.root)).toBe(true);
      const prepared = await prefetch.take('r1', f.root);
      expect(prepared?.pack?.id).toBe('mx00early-0123456789ab');
      const record = await f.store.snapshot({ sessionKey: 's', root: f.root, label: 'turn' }, prepared);
      expect(record.takenAt).toBe(prepared!.takenAt);
      expect(f.store.loadTree(record.tree).entries.map((e) => e.p)).toContain('new.txt');
      expect(f.tmpPacks()).toEqual([]);
    } finally {
      await prefetch.close();
      await early.worker.terminate();
    }
  });

  it('throws it away when the inputs differ (its pack removed) and prepares the capture again on the same thread', async () => {
    const f = await folder();
    const input = f.store.prepareInput(f.root);
    const early = leaveEarlyCapture({ ...input, limits: { ...input.limits, maxFileBytes: 5 }, packId: 'mx00early-ba9876543210' } as EarlyInput);
    const prefetch = new CheckpointPrefetcher({ store: f.store, minEntries: 1 });
    try {
      expect(prefetch.startEarly(f.root)).toBe(true);
      expect(prefetch.start('r1', f.root)).toBe(true);
      const prepared = await prefetch.take('r1', f.root);
      expect(prepared).toBeDefined();
      expect(prepared!.pack?.id).not.toBe('mx00early-ba9876543210');
      expect(prepared!.skipped).toBe(0); // this capture used the gateway limits
      await f.store.snapshot({ sessionKey: 's', root: f.root, label: 'turn' }, prepared);
      await waitFor(() => f.tmpPacks().length === 0);
    } finally {
      await prefetch.close();
      await early.worker.terminate();
    }
  });

  it('never claimed (a gateway command): removed when the gateway closes', async () => {
    const f = await folder();
    const early = leaveEarlyCapture({ ...f.store.prepareInput(f.root), packId: 'mx00early-00112233aabb' } as EarlyInput);
    const prefetch = new CheckpointPrefetcher({ store: f.store, minEntries: 1 });
    await waitFor(() => f.tmpPacks().length > 0); // the capture is under way (or done)
    await prefetch.close();
    await waitFor(() => f.tmpPacks().length === 0);
    expect(f.store.list('s')).toEqual([]);
  });
});

describe('startNicedWorker: the checkpoint worker at background priority from its first instruction', () => {
  // The worker's own first statement reads its thread's niceness: Node's bootstrap of the thread ran before it, so
  // this sees what the starting thread set (a plain Worker: the process's niceness until its script lowers it).
  const probe = new URL(`data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; import { getPriority } from 'node:os'; parentPort.postMessage(getPriority());")}`);
  const niceOf = (w: Worker) => new Promise<number>((resolve, reject) => w.once('message', (n: number) => void w.terminate().then(() => resolve(n))).once('error', reject));

  it.skipIf(process.platform !== 'linux')('on Linux the new thread runs below the process from the start; a plain Worker does not', async () => {
    const own = getPriority();
    expect(await niceOf(startNicedWorker(probe))).toBe(Math.max(own, CHECKPOINT_WORKER_NICE));
    expect(await niceOf(new Worker(probe))).toBe(own);
    expect(getPriority()).toBe(own); // this thread is left as it was
  });
});
