/**
 * What retention costs a snapshot, below and at the cap, as a CLI turn sees it: a fresh CheckpointStore per turn (a new
 * process: trees and pack indexes read back from disk), one file written per turn, on the bench's 10 000-file /
 * 100 MB workspace. Prints the wall and CPU time of the store's retain step (prune the log, collect when due) per
 * turn, the whole snapshot's wall time, and the load average. Not a `npm run bench` row (≈ 30 s of disk work):
 *
 *   npx tsx test/bench/checkpoints-retain.ts          # KEEP=100 TURNS=30 by default; WS=<dir> reuses a workspace
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { CheckpointStore, DEFAULT_CHECKPOINT_SETTINGS } from '../../main/checkpoints/store.js';
import { makeWorkspace } from './checkpoints.js';
import { median } from './stats.js';

const keep = Number(process.env.KEEP ?? 100);
const turns = Number(process.env.TURNS ?? 30);
const ws = process.env.WS ?? makeWorkspace(10_000, 10_240);
const home = mkdtempSync(path.join(tmpdir(), 'agentdesk-bench-retain-'));
const settings = () => ({ ...DEFAULT_CHECKPOINT_SETTINGS, keep });

interface Turn {
  wall: number;
  cpu: number;
  snapshot: number;
}

let n = 0;
async function turn(): Promise<Turn> {
  writeFileSync(path.join(ws, `dir${n % 100}`, `retain${n}.txt`), `turn ${n} ${'x'.repeat(10_000)}`);
  n++;
  const store = new CheckpointStore(home, { onNotice: () => {}, settings });
  // The retain step is private: timed by wrapping it on this one object.
  const hook = store as unknown as { retainLocked: (key: string) => Promise<void> };
  const retain = hook.retainLocked.bind(store);
  const out: Turn = { wall: 0, cpu: 0, snapshot: 0 };
  hook.retainLocked = async (key) => {
    const t = performance.now();
    const c = process.cpuUsage();
    await retain(key);
    out.wall = performance.now() - t;
    const d = process.cpuUsage(c);
    out.cpu = (d.user + d.system) / 1000;
  };
  const t = performance.now();
  await store.snapshot({ sessionKey: 'bench', root: ws, label: `turn ${n}` });
  out.snapshot = performance.now() - t;
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const show = (what: string, rs: Turn[]) => {
  const w = rs.map((r) => r.wall);
  const c = rs.map((r) => r.cpu);
  console.log(
    `${what.padEnd(14)} retain: wall median ${median(w).toFixed(2)} / mean ${mean(w).toFixed(2)} / max ${Math.max(...w).toFixed(1)} ms, ` +
      `CPU median ${median(c).toFixed(2)} / mean ${mean(c).toFixed(2)} ms; snapshot wall median ${median(rs.map((r) => r.snapshot)).toFixed(0)} ms (${rs.length} turns)`,
  );
};

try {
  const below: Turn[] = [];
  for (let i = 0; i < keep; i++) {
    const r = await turn();
    if (i >= keep - 20) below.push(r);
  }
  const at: Turn[] = [];
  for (let i = 0; i < turns; i++) at.push(await turn());
  console.log(`keep ${keep}`);
  show('below the cap', below);
  show('at the cap', at);
  console.log(`trees on disk ${readdirSync(path.join(home, 'trees')).filter((f) => f.endsWith('.json.gz')).length}; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
} finally {
  rmSync(home, { recursive: true, force: true });
  if (!process.env.WS) rmSync(ws, { recursive: true, force: true });
}
