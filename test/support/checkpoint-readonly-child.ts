/**
 * Run as an unprivileged user (as-nobody.ts): a checkpoint of `<base>/ws`, changes, then one folder's mode set to
 * `mode` (read-only 0o555, or 0) and a restore — which cannot write into that folder. Prints one JSON line: the
 * error, each file's content (the folder's mode put back first), whether a journal is left, and whether the next
 * snapshot and a restore after the mode is fixed work.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CheckpointStore } from '../../main/checkpoints/store.js';

const base = process.argv[2]!;
const mode = Number(process.argv[3]);
const ws = path.join(base, 'ws');
const home = path.join(base, 'home');
const store = new CheckpointStore(home, { racyMs: 0, onNotice: () => {} });
for (const d of ['a', 'b', 'c']) mkdirSync(path.join(ws, d), { recursive: true });
for (const d of ['a', 'b', 'c']) writeFileSync(path.join(ws, d, 'f.txt'), `${d} then\n`);
const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
for (const d of ['a', 'b', 'c']) writeFileSync(path.join(ws, d, 'f.txt'), `${d} now\n`);
writeFileSync(path.join(ws, 'a', 'new.txt'), 'created since\n');
chmodSync(path.join(ws, 'b'), mode);
let error: { name: string; message: string } | undefined;
try {
  await store.restore({ sessionKey: 's', id: cp.id, files: true });
} catch (err) {
  error = { name: (err as Error).name, message: (err as Error).message };
}
chmodSync(path.join(ws, 'b'), 0o755);
const files = Object.fromEntries(['a', 'b', 'c'].flatMap((d) => readdirSync(path.join(ws, d)).map((n) => [`${d}/${n}`, readFileSync(path.join(ws, d, n), 'utf8')])));
const journal = existsSync(path.join(home, 'journal.json'));
await store.restore({ sessionKey: 's', id: cp.id, files: true });
const after = Object.fromEntries(['a', 'b', 'c'].flatMap((d) => readdirSync(path.join(ws, d)).map((n) => [`${d}/${n}`, readFileSync(path.join(ws, d, n), 'utf8')])));
process.stdout.write(`${JSON.stringify({ error, files, journal, after })}\n`);
