/**
 * T2 confinement, adversarially: a fast-check property over thousands of hostile paths and random symlink layouts
 * for every path-taking tool (zero escapes, zero crashes), a swap race (a folder flipped with a symlink to the
 * outside in a loop by another process while the tools read and write through it), and bounded memory for a
 * 200 MB one-line file.
 */
import { spawn } from 'node:child_process';
import { mkfifoSync } from '../support/mkfifo.js';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceTools } from '../../main/tools/index.js';
import { ToolError, type Tool, type ToolContext } from '../../main/tools/types.js';

const RACE_ROUNDS = Number(process.env.RACE_ROUNDS ?? 340);
const SECRET = 'TOP-SECRET-OUTSIDE';
const PWN = 'PWNED-BY-TOOL';

let root = '';
const tools = createWorkspaceTools();
const byName = (n: string): Tool => tools.find((t) => t.name === n)!;

/** Every file below `dir` (not following symlinks), with its content. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.set(p, await readFile(p, 'utf8'));
      else out.set(p, `<${e.isSymbolicLink() ? 'link' : 'other'}>`);
    }
  };
  await walk(dir);
  return out;
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-confine-')));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Path fragments a hostile model might combine. */
const FRAGMENTS = [
  '..', '.', '', 'a', 'b', 'dir', 'f.txt', 'new.txt', 'l0', 'l1', 'l2', 'l3', 'secret.txt', 'outside',
  'fifo', '...', '~', 'x'.repeat(300), 'a\0b', '/', '\\', '%2e%2e', '.git',
];

const SYMLINK_TARGETS = ['../outside', '../outside/secret.txt', '/etc', '/etc/passwd', 'dir', 'dir/f.txt', '..', '.',
  'l0', 'l1', '../../', 'missing', '../outside/new', 'dir/../..', '<outside-abs>', '<ws-abs>/dir'];

describe('confinement property (fast-check)', () => {
  it('no path-taking tool reads, writes or crashes outside the workspace', async () => {
    const layouts = fc.sample(fc.array(fc.constantFrom(...SYMLINK_TARGETS), { minLength: 4, maxLength: 4 }), { numRuns: 5, seed: 7 });
    let calls = 0;
    for (const [i, targets] of layouts.entries()) {
      const base = path.join(root, `prop${i}`);
      const ws = path.join(base, 'ws');
      const outside = path.join(base, 'outside');
      await mkdir(path.join(ws, 'dir/a'), { recursive: true });
      await mkdir(outside);
      await writeFile(path.join(outside, 'secret.txt'), SECRET);
      await writeFile(path.join(ws, 'dir/f.txt'), 'inside\n');
      mkfifoSync(path.join(ws, 'fifo'));
      for (const [j, t] of targets.entries()) {
        const target = t.replace('<outside-abs>', outside).replace('<ws-abs>', ws);
        await symlink(target, path.join(ws, j % 2 ? `dir/l${j}` : `l${j}`));
      }
      const before = await snapshot(outside);
      const ctx: ToolContext = { workspace: ws, signal: new AbortController().signal };
      const hostilePath = fc
        .tuple(fc.boolean(), fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }))
        .map(([abs, parts]) => (abs ? `${ws}/${parts.join('/')}` : parts.join('/')));
      const call = fc.oneof(
        hostilePath.map((p) => ['read', { path: p }] as const),
        hostilePath.map((p) => ['list', { path: p }] as const),
        hostilePath.map((p) => ['write', { path: p, content: PWN }] as const),
        hostilePath.map((p) => ['edit', { path: p, edits: [{ oldText: SECRET, newText: PWN }] }] as const),
        hostilePath.map((p) => ['apply_patch', { patch: `--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n-${SECRET}\n+${PWN}\n` }] as const),
        hostilePath.map((p) => ['apply_patch', { patch: `--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+${PWN}\n` }] as const),
        hostilePath.map((p) => ['find', { pattern: '**/*', path: p }] as const),
        hostilePath.map((p) => ['grep', { pattern: 'SECRET|inside', path: p }] as const),
        hostilePath.map((p) => ['find', { pattern: p }] as const),
      );
      await fc.assert(
        fc.asyncProperty(call, async ([name, args]) => {
          calls += 1;
          try {
            const out = await byName(name).execute(args as Record<string, unknown>, ctx);
            expect(out.content).not.toContain(SECRET);
          } catch (err) {
            // A refusal is fine; anything but a ToolError (a crash, a raw errno) is not.
            if (!(err instanceof ToolError)) throw new Error(`${name} ${JSON.stringify(args)} crashed: ${String(err)}`);
            expect((err as Error).message).not.toContain(SECRET);
          }
        }),
        { numRuns: 450, seed: 1000 + i },
      );
      expect(await snapshot(outside)).toEqual(before);
    }
    expect(calls).toBeGreaterThanOrEqual(2000);
  }, 60_000);
});

describe('swap race', () => {
  it('a folder flipped with a symlink to the outside never leaks a read or a write over 1 000+ calls', async () => {
    const ws = path.join(root, 'race/ws');
    const outside = path.join(root, 'race/outside');
    await mkdir(path.join(ws, 'd'), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(ws, 'd/f.txt'), 'INSIDE');
    await writeFile(path.join(outside, 'f.txt'), SECRET);
    // Another process flips ws/d between the real folder and a symlink to the outside as fast as it can.
    const flipper = spawn(process.execPath, ['-e', `
      const fs = require('fs'); const d = ${JSON.stringify(path.join(ws, 'd'))};
      const real = d + '.real', tmp = d + '.tmp', out = ${JSON.stringify(outside)};
      for (;;) {
        try { fs.renameSync(d, real); fs.symlinkSync(out, tmp); fs.renameSync(tmp, d);
              fs.unlinkSync(d); fs.renameSync(real, d); } catch {}
      }`], { stdio: 'ignore' });
    const ctx: ToolContext = { workspace: ws, signal: new AbortController().signal };
    let calls = 0;
    let okReads = 0;
    let okWrites = 0;
    let refused = 0;
    const leaks: string[] = [];
    try {
      for (let i = 0; i < RACE_ROUNDS; i += 1) {
        const ops = [
          byName('read').execute({ path: 'd/f.txt' }, ctx).then((o) => { okReads += 1; if (o.content.includes(SECRET)) leaks.push('read'); }),
          byName('write').execute({ path: `d/w${i % 8}.txt`, content: PWN }, ctx).then(() => { okWrites += 1; }),
          byName('grep').execute({ pattern: 'SECRET|INSIDE', path: 'd' }, ctx).then((o) => { if (o.content.includes(SECRET)) leaks.push('grep'); }),
        ];
        for (const [k, r] of (await Promise.allSettled(ops)).entries()) {
          calls += 1;
          if (r.status === 'fulfilled') continue;
          if (!(r.reason instanceof ToolError)) throw new Error(`call ${k} of round ${i} crashed: ${String(r.reason)}`);
          refused += 1;
        }
      }
    } finally {
      flipper.kill('SIGKILL');
      await new Promise((r) => flipper.once('exit', r));
    }
    expect(calls).toBeGreaterThanOrEqual(1000);
    expect(leaks).toEqual([]);
    expect(await readdir(outside)).toEqual(['f.txt']);
    expect(await readFile(path.join(outside, 'f.txt'), 'utf8')).toBe(SECRET);
    // The race was real: some calls went through while the folder was in place, others met the symlink.
    expect(okReads + okWrites).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 60_000);
});

describe('streaming', () => {
  it('reads a 200 MB one-line file without holding it in memory', async () => {
    const file = path.join(root, 'big/ws/one-line.txt');
    await mkdir(path.dirname(file), { recursive: true });
    const chunk = 'x'.repeat(1024 * 1024);
    await new Promise<void>((resolve, reject) => {
      const s = createWriteStream(file);
      s.on('error', reject);
      let n = 0;
      const more = (): void => {
        while (n < 200) {
          n += 1;
          if (!s.write(chunk)) return void s.once('drain', more);
        }
        s.end(resolve);
      };
      more();
    });
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const out = await byName('read').execute({ path: 'one-line.txt' }, { workspace: path.dirname(file), signal: new AbortController().signal });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(out.content).toMatch(/\[truncated: line 1 is 209715200 chars long, showing the first 50000; use offset\/limit\]$/);
    expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);
    await rm(file);
  }, 60_000);
});
