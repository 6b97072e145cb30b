/**
 * X2 property: random sequences of file creations, edits, deletions, renames, mode changes, folders and symlinks,
 * interleaved with checkpoints and restores (and undos), always restore exactly the recorded tree — read back from
 * the disk by an independent walker (kind, mode, bytes, link text), with `node_modules` never touched.
 */
import fc from 'fast-check';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/checkpoints/store.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tmp(prefix: string) {
  const d = mkdtempSync(path.join(tmpdir(), `agentdesk-cp-${prefix}-`));
  made.push(d);
  return d;
}

/** The workspace as the test sees it (no help from the code under test). */
function readState(root: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(root, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (name === 'node_modules') continue;
    const st = lstatSync(path.join(root, r));
    const mode = (st.mode & 0o777).toString(8);
    if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(path.join(root, r))}`;
    else if (st.isDirectory()) {
      out[r] = `dir ${mode}`;
      Object.assign(out, readState(root, r));
    } else out[r] = `file ${mode} ${readFileSync(path.join(root, r)).toString('base64')}`;
  }
  return out;
}

const NAMES = ['a', 'b', 'c.txt', 'd/e', 'd/f.md', 'g/h/i', 'j k', 'ü'];
const name = fc.constantFrom(...NAMES);
const content = fc.oneof(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 64 }).map((u) => Buffer.from(u).toString('latin1')));

type Op =
  | { op: 'write'; p: string; text: string }
  | { op: 'delete'; p: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'chmod'; p: string; mode: number }
  | { op: 'symlink'; p: string; target: string }
  | { op: 'mkdir'; p: string }
  | { op: 'checkpoint' }
  | { op: 'restore'; which: number }
  | { op: 'undo' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), p: name, text: content }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), p: name }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), from: name, to: name }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('chmod' as const), p: name, mode: fc.constantFrom(0o644, 0o755, 0o600, 0o444) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('symlink' as const), p: name, target: fc.constantFrom('a', '../outside', '/etc/passwd', 'd', 'missing') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('mkdir' as const), p: fc.constantFrom('d', 'g', 'g/h', 'empty', 'd/sub') }) },
  { weight: 3, arbitrary: fc.constant({ op: 'checkpoint' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('restore' as const), which: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'undo' as const }) },
);

/** Applies a file-system op; ops that make no sense in the current state (a parent is a file…) just fail. */
function mutate(root: string, o: Op) {
  const abs = (p: string) => path.join(root, p);
  try {
    if (o.op === 'write') {
      mkdirSync(path.dirname(abs(o.p)), { recursive: true });
      writeFileSync(abs(o.p), o.text, 'latin1');
    } else if (o.op === 'delete') rmSync(abs(o.p), { recursive: true, force: true });
    else if (o.op === 'rename') {
      mkdirSync(path.dirname(abs(o.to)), { recursive: true });
      renameSync(abs(o.from), abs(o.to));
    } else if (o.op === 'chmod') chmodSync(abs(o.p), o.mode);
    else if (o.op === 'symlink') {
      mkdirSync(path.dirname(abs(o.p)), { recursive: true });
      rmSync(abs(o.p), { recursive: true, force: true });
      symlinkSync(o.target, abs(o.p));
    } else if (o.op === 'mkdir') mkdirSync(abs(o.p), { recursive: true });
  } catch {
    /* not applicable in this state */
  }
}

describe('checkpoints: restore gives back exactly the recorded tree', () => {
  it('holds for random sequences of changes, checkpoints, restores and undos', async () => {
    const home = tmp('home');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 30, size: 'max' }), async (ops) => {
        const root = tmp('ws');
        mkdirSync(path.join(root, 'node_modules'));
        writeFileSync(path.join(root, 'node_modules', 'dep.js'), 'untouched');
        const store = new CheckpointStore(path.join(home, `store-${run}`), { onNotice: () => {} });
        const session = `s${run++}`;
        const recorded: { id: string; state: Record<string, string> }[] = [];
        const restores: { before: Record<string, string> }[] = [];
        for (const o of ops) {
          if (o.op === 'checkpoint') {
            const state = readState(root);
            const r = await store.snapshot({ sessionKey: session, root, label: `cp ${recorded.length}` });
            recorded.push({ id: r.id, state });
          } else if (o.op === 'restore') {
            if (recorded.length === 0) continue;
            const target = recorded[o.which % recorded.length]!;
            const before = readState(root);
            await store.restore({ sessionKey: session, id: target.id, files: true });
            restores.push({ before });
            expect(readState(root)).toEqual(target.state);
            (globalThis as { restoresChecked?: number }).restoresChecked = ((globalThis as { restoresChecked?: number }).restoresChecked ?? 0) + 1;
          } else if (o.op === 'undo') {
            const last = store.lastRestore(session);
            if (!last) continue;
            const expected = restores.at(-1)!.before;
            const after = readState(root);
            await store.restore({ sessionKey: session, id: last.before, files: true, undoOf: last.id });
            expect(readState(root)).toEqual(expected);
            restores.push({ before: after });
          } else {
            mutate(root, o);
          }
        }
        expect(readFileSync(path.join(root, 'node_modules', 'dep.js'), 'utf8')).toBe('untouched');
        // Make everything writable again so the temp folder can be removed.
        for (const [p, v] of Object.entries(readState(root))) if (!v.startsWith('link')) chmodSync(path.join(root, p), v.startsWith('dir') ? 0o755 : 0o644);
      }),
      { numRuns: Number(process.env.AGENTDESK_SLOW_TESTS ? 150 : 40) },
    );
    // The property really exercised restores (not only runs that never reached one).
    expect((globalThis as { restoresChecked?: number }).restoresChecked ?? 0).toBeGreaterThan(20);
  }, 120_000);
});
