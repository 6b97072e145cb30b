/**
 * X2: the entry cap. A folder with millions of tiny files used to be walked and stored without limit (there were
 * caps per file and in total bytes, none on the number of entries). Now the walk stops at `maxEntries` (config.json
 * `checkpoints.maxEntries`, default 200 000) — and once MAX_SKIPPED_LISTED paths are listed as skipped — and lists
 * each folder it did not finish (one per level of depth: the list stays small); a restore to such a checkpoint
 * restores what it holds and removes nothing it does not hold in those folders.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { restoreChanges } from '../../main/checkpoints/apply.js';
import { settingsFrom } from '../../main/checkpoints/open.js';
import { MAX_SKIPPED_LISTED, scanWorkspace } from '../../main/checkpoints/scan.js';
import { CheckpointStore, DEFAULT_CHECKPOINT_SETTINGS } from '../../main/checkpoints/store.js';
import { configSchema } from '../../main/engine/config/schema.js';
import { write } from '../support/killed-restore.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpcap');
const LIMITS = { maxFileBytes: 1e9, maxTotalBytes: 1e12 };

/** 3 folders × 30 files, 5 files at the top: 98 entries. */
function folder() {
  const ws = tmp('ws');
  for (const d of ['a', 'b', 'c']) for (let i = 0; i < 30; i++) write(ws, `${d}/f${String(i).padStart(2, '0')}.txt`, `${d}${i}\n`);
  for (let i = 0; i < 5; i++) write(ws, `top${i}.txt`, `top${i}\n`);
  return ws;
}

/** Every path recorded, or under a folder listed as not finished (nothing lost silently). */
function accounted(scan: { entries: { p: string }[]; skipped: { p: string; reason: string }[] }, p: string): boolean {
  if (scan.entries.some((e) => e.p === p)) return true;
  return scan.skipped.some((s) => s.p === p || (s.reason === 'entry-cap' && (s.p === '.' || p.startsWith(`${s.p}/`))));
}

describe('the entry cap', () => {
  it('the default is 200 000, in config.json as checkpoints.maxEntries (with the other caps)', () => {
    expect(DEFAULT_CHECKPOINT_SETTINGS.maxEntries).toBe(200_000);
    const config = configSchema.parse({ checkpoints: { maxEntries: 5000 } });
    expect(settingsFrom(config).maxEntries).toBe(5000);
    expect(settingsFrom(configSchema.parse({})).maxEntries).toBe(200_000);
    expect(() => configSchema.parse({ checkpoints: { maxEntries: 0 } })).toThrow();
    expect(() => configSchema.parse({ checkpoints: { maxEntries: 1.5 } })).toThrow();
  });

  it('the walk stops at the cap; the folders it did not finish are listed, one per level; nothing is lost silently', async () => {
    const ws = folder();
    const all = await scanWorkspace(ws, { ...LIMITS, maxEntries: 1e6 });
    expect(all.entries).toHaveLength(98);
    expect(all.skipped).toEqual([]);
    const scan = await scanWorkspace(ws, { ...LIMITS, maxEntries: 50 });
    expect(scan.entries.length).toBe(50);
    expect(scan.skipped.every((s) => s.reason === 'entry-cap')).toBe(true);
    // The folder being walked when the cap was reached and the workspace itself: depth 2.
    expect(scan.skipped.length).toBeGreaterThan(0);
    expect(scan.skipped.length).toBeLessThanOrEqual(2);
    for (const e of all.entries) expect(accounted(scan, e.p), e.p).toBe(true);
  });

  it('the list of skipped paths is bounded too (thousands of files over the total cap): the walk stops there as at the cap', async () => {
    const ws = tmp('many');
    const n = MAX_SKIPPED_LISTED + 500;
    for (let i = 0; i < n; i++) writeFileSync(path.join(ws, `f${String(i).padStart(5, '0')}.bin`), 'xxxxxxxxxx');
    const scan = await scanWorkspace(ws, { maxFileBytes: 1e9, maxTotalBytes: 100, maxEntries: 1e6 });
    expect(scan.skipped.length).toBeLessThanOrEqual(MAX_SKIPPED_LISTED + 1);
    expect(scan.skipped.at(-1)).toEqual({ p: '.', reason: 'entry-cap' });
    for (let i = 0; i < n; i++) expect(accounted(scan, `f${String(i).padStart(5, '0')}.bin`)).toBe(true);
  });

  it('what a restore would remove: nothing in a folder the checkpoint did not finish', async () => {
    const ws = folder();
    const now = await scanWorkspace(ws, { ...LIMITS, maxEntries: 1e6 });
    const capped = await scanWorkspace(ws, { ...LIMITS, maxEntries: 50 });
    const asTree = (s: typeof now) => ({ entries: s.entries.map((e) => ({ ...e, h: 'x' })), skipped: s.skipped });
    expect(restoreChanges(asTree(now), asTree(capped)).filter((c) => !c.to)).toEqual([]);
    // Without the list of unfinished folders, 48 paths would go.
    expect(restoreChanges(asTree(now), { ...asTree(capped), skipped: [] }).filter((c) => !c.to)).toHaveLength(48);
  });

  it('a restore to a capped checkpoint restores what it holds and removes nothing it does not hold in an unfinished folder', async () => {
    const ws = folder();
    let maxEntries = 50;
    const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {}, settings: () => ({ ...DEFAULT_CHECKPOINT_SETTINGS, maxEntries }) });
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'capped' });
    expect(cp.skipped).toBeGreaterThan(0);
    expect(cp.skippedSample?.some((s) => s.endsWith('/… (entry-cap)'))).toBe(true);
    const tree = store.loadTree(cp.tree);
    const held = new Set(tree.entries.map((e) => e.p));
    const files = ['a', 'b', 'c'].flatMap((d) => Array.from({ length: 30 }, (_, i) => `${d}/f${String(i).padStart(2, '0')}.txt`));
    const [heldFile, removed] = files.filter((p) => held.has(p));
    const notHeld = files.find((p) => !held.has(p))!;
    // The folder the walk did not finish (the deepest listed): a file made there since is not removed either.
    const unfinished = tree.skipped.filter((s) => s.reason === 'entry-cap').map((s) => s.p).sort().at(-1)!;
    const made = unfinished === '.' ? 'new.txt' : `${unfinished}/new.txt`;
    // Since then: a held file changed and another removed; a file the checkpoint did not reach changed too.
    write(ws, heldFile!, 'changed\n');
    rmSync(path.join(ws, removed!));
    write(ws, notHeld, 'changed, never recorded\n');
    write(ws, made, 'new\n');
    // The cap raised since (the restore's own checkpoint of the folder holds every file): still nothing removed.
    maxEntries = 1e6;
    const { record } = await store.restore({ sessionKey: 's', id: cp.id, files: true });
    expect(record.summary.deleted).toBe(0);
    const original = (p: string) => `${p.slice(0, 1)}${Number(p.slice(3, 5))}\n`;
    expect(readFileSync(path.join(ws, heldFile!), 'utf8')).toBe(original(heldFile!));
    expect(readFileSync(path.join(ws, removed!), 'utf8')).toBe(original(removed!));
    // Not held: left as they are (the checkpoint cannot say whether they were there).
    expect(readFileSync(path.join(ws, notHeld), 'utf8')).toBe('changed, never recorded\n');
    expect(readFileSync(path.join(ws, made), 'utf8')).toBe('new\n');
    for (const p of files.filter((f) => f !== notHeld)) expect(existsSync(path.join(ws, p)), p).toBe(true);
  });
});
