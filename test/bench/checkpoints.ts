/**
 * `npm run bench` rows for X2 checkpoints, on a generated workspace of 10 000 files / 100 MB (10 KB each, in 100
 * folders, mtimes an hour old like a checkout):
 *
 * 1. the first snapshot of a session (an empty store: every file read, hashed and packed) vs the goal 1.5 s;
 * 2. a later snapshot with 3 files changed, by a fresh store object (as a new CLI process: the previous tree and the
 *    pack indexes are read back from disk) and by one kept across snapshots (the app), median of 5 each, vs the goal
 *    100 ms (CPU time beside the wall time: on a busy shared machine the wall time mostly measures the queue);
 * 3. one CLI turn with a `write` call (two model calls, the file written) with checkpoints on vs the same turn with
 *    `checkpoints.enabled: false`, each in its own copy of the workspace, median of per-round ratios (order rotates)
 *    — on the 10 000-file workspace and on a 1 000-file / 10 MB one; against a model whose first token comes after
 *    100 ms per reply (vs the goal 1.10×) and against one that answers at once (the worst case: what checkpoints add
 *    to the CLI's own start-up and work, in ms).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { median, pairedRounds } from './stats.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CheckpointRow {
  what: string;
  ours: string;
  yardstick: string;
  ratio: number;
  goal: string;
  /** Unset: a row without a goal. */
  ok?: boolean;
}


/** `files` files of `size` bytes (random, so nothing dedupes) in 100 folders, an hour old. */
export function makeWorkspace(files: number, size: number): string {
  const root = mkdtempSync(join(tmpdir(), 'agentdesk-bench-cpws-'));
  const old = new Date(Date.now() - 3600_000);
  for (let i = 0; i < files; i++) {
    const dir = join(root, `dir${i % 100}`);
    if (i < 100) mkdirSync(dir);
    const file = join(dir, `file${i}.txt`);
    writeFileSync(file, randomBytes(size / 2).toString('hex'));
    utimesSync(file, old, old);
  }
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  utimesSync(join(root, '.gitignore'), old, old);
  return root;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve((performance.now() - t) / 1000) : reject(new Error(`${args.join(' ')} failed (${code}): ${stderr}`))));
  });
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

async function snapshotRows(ws: string): Promise<CheckpointRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'agentdesk-bench-cphome-'));
  try {
    let t = performance.now();
    let cpu = process.cpuUsage();
    await new CheckpointStore(home, { onNotice: () => {} }).snapshot({ sessionKey: 'bench', root: ws, label: 'first' });
    const first = (performance.now() - t) / 1000;
    const firstCpu = cpuMs(cpu);
    const later: Record<'fresh' | 'kept', { wall: number[]; cpu: number[] }> = { fresh: { wall: [], cpu: [] }, kept: { wall: [], cpu: [] } };
    const kept = new CheckpointStore(home, { onNotice: () => {} });
    for (let i = 0; i < 10; i++) {
      for (let j = 0; j < 3; j++) writeFileSync(join(ws, `dir${j}`, `file${j}.txt`), `changed ${i} ${j}`);
      // Alternately a fresh store object (a new CLI process: trees and indexes read back from disk) and the one the
      // app keeps for its lifetime.
      const which = i % 2 ? 'kept' : 'fresh';
      const store = which === 'kept' ? kept : new CheckpointStore(home, { onNotice: () => {} });
      t = performance.now();
      cpu = process.cpuUsage();
      await store.snapshot({ sessionKey: 'bench', root: ws, label: `later ${i}` });
      later[which].wall.push(performance.now() - t);
      later[which].cpu.push(cpuMs(cpu));
    }
    const row = (which: 'fresh' | 'kept', label: string): CheckpointRow => {
      const l = median(later[which].wall);
      return { what: `checkpoint: later snapshot, 3 files changed, ${label} (median of 5)`, ours: `${l.toFixed(0)} ms (CPU ${median(later[which].cpu).toFixed(0)} ms)`, yardstick: 'goal 100 ms', ratio: l / 100, goal: '≤ 1', ok: l <= 100 };
    };
    return [
      { what: 'checkpoint: first snapshot, 10 000 files / 100 MB', ours: `${first.toFixed(2)} s (CPU ${(firstCpu / 1000).toFixed(2)} s)`, yardstick: 'goal 1.5 s', ratio: first / 1.5, goal: '≤ 1', ok: first <= 1.5 },
      row('fresh', 'new process'),
      row('kept', 'the app'),
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** A fake server scripted to call `write` once and then answer, and the model time it plays before each reply. */
export interface WriteTurnModel {
  baseUrl: string;
  /** Time to the first event of each reply (the fake's `--first-byte`), ms. */
  firstByteMs: number;
}

/**
 * Rows 3: the same `write` turn with checkpoints on and off, once per model (same two workspaces, the config pointed
 * at each model in turn). A model that answers at once is the worst case, not a real one: the turn is then only the
 * CLI's own start-up and work, and its row shows what checkpoints add to that in milliseconds (no goal). The goal is
 * held against a model as fast as the fastest hosted ones.
 */
async function writeTurnRows(models: WriteTurnModel[], files: number, size: number, label: string, rounds: number): Promise<CheckpointRow[]> {
  const homes = { on: mkdtempSync(join(tmpdir(), 'agentdesk-bench-on-')), off: mkdtempSync(join(tmpdir(), 'agentdesk-bench-off-')) };
  const wss = { on: makeWorkspace(files, size), off: makeWorkspace(files, size) };
  const configure = (baseUrl: string) => {
    for (const k of ['on', 'off'] as const) {
      writeFileSync(
        join(homes[k], 'config.json'),
        JSON.stringify({
          providers: { fake: { api: 'anthropic', baseUrl, models: [{ id: 'bench', maxTokens: 4096 }] } },
          authProfiles: [{ id: 'fake:bench', provider: 'fake', apiKeyEnv: 'BENCH_KEY' }],
          agent: { model: { primary: 'fake/bench' }, approvals: { mode: 'auto' } },
          checkpoints: { enabled: k === 'on' },
        }),
      );
    }
  };
  const env = { ...process.env, ANTHROPIC_API_KEY: '', BENCH_KEY: 'sk-ant-bench' };
  const turn = (k: 'on' | 'off') =>
    run(process.execPath, [join(ROOT, 'bin/agentdesk.mjs'), 'agent', '--home', homes[k], '--workspace', wss[k], '--session', 'bench', '--message', 'write it'], env);
  const rows: CheckpointRow[] = [];
  try {
    for (const [i, model] of models.entries()) {
      configure(model.baseUrl);
      if (i === 0) {
        // The session's first snapshot (every file read) happens once; the rows measure the turns after it.
        await turn('on');
        await turn('off');
      }
      const { on, off, ratio, added: addedS } = await pairedRounds(rounds, turn);
      const added = addedS * 1000;
      const instant = model.firstByteMs === 0;
      rows.push({
        what: instant
          ? `CLI turn with a write, checkpoints on, a model that answers at once — worst case (${label}, ${rounds} rounds)`
          : `CLI turn with a write, checkpoints on, model's first token after ${model.firstByteMs} ms (${label}, ${rounds} rounds)`,
        ours: `${median(on).toFixed(3)} s (${added < 0 ? '−' : '+'}${Math.abs(added).toFixed(0)} ms)`,
        yardstick: `checkpoints off ${median(off).toFixed(3)} s`,
        ratio,
        goal: instant ? 'none: what checkpoints add' : '≤ 1.10×',
        ...(instant ? {} : { ok: ratio <= 1.1 }),
      });
    }
    return rows;
  } finally {
    for (const d of [...Object.values(homes), ...Object.values(wss)]) rmSync(d, { recursive: true, force: true });
  }
}

/** `models`: fake servers scripted to call `write` once and then answer (the first one answering at once). */
export async function checkpointRows(models: WriteTurnModel[], rounds: number): Promise<CheckpointRow[]> {
  const ws = makeWorkspace(10_000, 10_000);
  try {
    return [
      ...(await snapshotRows(ws)),
      ...(await writeTurnRows(models, 10_000, 10_000, '10 000 files / 100 MB', rounds)),
      ...(await writeTurnRows(models, 1_000, 10_000, '1 000 files / 10 MB', rounds)),
    ];
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
