/**
 * `npm run bench` rows for X2 checkpoints in the app: the same `write` turn as test/bench/checkpoints.ts, but sent
 * to a gateway that stays up (as the desktop app's does: the store, its stat cache and the worker are warm, nothing
 * is started per turn) instead of a new CLI process per turn. Two gateways in this process, one with checkpoints on
 * and one off, each with its own data folder and its own copy of the workspace; a turn is timed from the `agent`
 * request to the end of `agent.wait` (the reply shown, the run ended; a checkpoint may still be committing then —
 * the next turn's first change would wait for it), median of per-round ratios, the order rotating each round, a
 * pause between turns (PAUSE_MS).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAppGateway } from '../../main/gateway/create.js';
import { setCheckpointWorkerScript } from '../../main/checkpoints/prefetch.js';
import { makeWorkspace, type CheckpointRow, type WriteTurnModel } from './checkpoints.js';
import { median, pairedRounds } from './stats.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Between two turns (not timed): the time a person takes to read a reply and send the next message is seconds; a
 * second is short of it. A checkpoint still committing when the reply ends is done by then — and when it is not,
 * the next turn's first change waits for it (gate.ts), which the row then shows.
 */
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 1000);

type Gateway = Awaited<ReturnType<typeof createAppGateway>>;


function configure(home: string, baseUrl: string, enabled: boolean): void {
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      providers: { fake: { api: 'anthropic', baseUrl, models: [{ id: 'bench', maxTokens: 4096 }] } },
      authProfiles: [{ id: 'fake:bench', provider: 'fake', apiKeyEnv: 'BENCH_KEY' }],
      agent: { model: { primary: 'fake/bench' }, approvals: { mode: 'auto' } },
      checkpoints: { enabled },
    }),
  );
}

/** One turn: the model calls `write`, then answers. Its wall time in seconds; throws unless it ended ok and wrote. */
async function turn(gateway: Gateway): Promise<number> {
  const t = performance.now();
  const { runId } = await gateway.request('agent', { message: 'write it', sessionKey: 'bench' });
  const waited = await gateway.request('agent.wait', { runId, timeoutMs: 120_000 });
  const s = (performance.now() - t) / 1000;
  if (waited.status !== 'ok') throw new Error(`app write turn: ${JSON.stringify(waited)}`);
  return s;
}

/** Rows: the app's write turn with checkpoints on vs off, once per model, on a workspace of `files` files. */
export async function appWriteTurnRows(models: WriteTurnModel[], files: number, size: number, label: string, rounds: number): Promise<CheckpointRow[]> {
  // As the app does (main/web.ts, the Electron shell): the capture's worker thread is the built bundle's entry.
  setCheckpointWorkerScript(pathToFileURL(join(ROOT, 'out/main/checkpoint-worker.js')));
  const kinds = ['on', 'off'] as const;
  const homes = { on: mkdtempSync(join(tmpdir(), 'agentdesk-bench-app-on-')), off: mkdtempSync(join(tmpdir(), 'agentdesk-bench-app-off-')) };
  const wss = { on: makeWorkspace(files, size), off: makeWorkspace(files, size) };
  const rows: CheckpointRow[] = [];
  try {
    for (const model of models) {
      const gateways = {} as Record<(typeof kinds)[number], Gateway>;
      for (const k of kinds) {
        configure(homes[k], model.baseUrl, k === 'on');
        gateways[k] = await createAppGateway({ home: homes[k], workspace: wss[k], env: { BENCH_KEY: 'sk-ant-bench' } });
      }
      try {
        // Warm-up (the session's first snapshot, when the store is empty, reads every file; JIT, sockets).
        for (const k of kinds) await turn(gateways[k]);
        // Between turns the person reads the reply (not timed).
        const { on, off, ratio, added: addedS } = await pairedRounds(rounds, (k) => turn(gateways[k]), () => new Promise((r) => setTimeout(r, PAUSE_MS)));
        const added = addedS * 1000;
        const instant = model.firstByteMs === 0;
        rows.push({
          what: instant
            ? `app turn with a write, checkpoints on, a model that answers at once — worst case (${label}, ${rounds} rounds)`
            : `app turn with a write, checkpoints on, model's first token after ${model.firstByteMs} ms (${label}, ${rounds} rounds)`,
          ours: `${(median(on) * 1000).toFixed(0)} ms (${added < 0 ? '−' : '+'}${Math.abs(added).toFixed(0)} ms)`,
          yardstick: `checkpoints off ${(median(off) * 1000).toFixed(0)} ms`,
          ratio,
          goal: instant ? 'none: what checkpoints add' : '≤ 1.10×',
          ...(instant ? {} : { ok: ratio <= 1.1 }),
        });
      } finally {
        for (const k of kinds) await gateways[k].close();
      }
    }
    return rows;
  } finally {
    for (const d of [...Object.values(homes), ...Object.values(wss)]) rmSync(d, { recursive: true, force: true });
  }
}

/** The app rows on the 10 000-file workspace and on the 1 000-file one (the CLI rows' sizes). */
export async function appCheckpointRows(models: WriteTurnModel[], rounds: number): Promise<CheckpointRow[]> {
  return [
    ...(await appWriteTurnRows(models, 10_000, 10_000, '10 000 files / 100 MB', rounds)),
    ...(await appWriteTurnRows(models, 1_000, 10_000, '1 000 files / 10 MB', rounds)),
  ];
}
