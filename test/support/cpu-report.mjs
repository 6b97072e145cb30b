#!/usr/bin/env node
// Prints the per-file CPU that test/support/cpu-record.ts logged: `node test/support/cpu-report.mjs LOG [N]`.
// The N files (default 25) that used the most CPU, then the total per project folder. On a 2-core machine the
// whole suite's wall time is at best its total CPU / 2: what a file costs the run is its CPU, not its wall time.
import { readFileSync } from 'node:fs';

const [log, n = '25'] = process.argv.slice(2);
const rows = readFileSync(log, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
rows.sort((a, b) => b.cpuMs - a.cpuMs);
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
console.log(`   CPU s  wall s  file (the ${Math.min(Number(n), rows.length)} of ${rows.length} files that used the most CPU)`);
for (const r of rows.slice(0, Number(n))) console.log(`${s(r.cpuMs)} ${s(r.wallMs)}  ${r.file}`);
const total = new Map();
for (const r of rows) {
  const group = r.file.startsWith('test/e2e/') ? 'test/e2e (Chromium)' : 'other test folders (Node)';
  const t = total.get(group) ?? { cpu: 0, wall: 0, files: 0 };
  total.set(group, { cpu: t.cpu + r.cpuMs, wall: t.wall + r.wallMs, files: t.files + 1 });
}
for (const [group, t] of total) console.log(`${s(t.cpu)} ${s(t.wall)}  total of ${t.files} files in ${group}`);
