/**
 * X2: a restore that can neither be finished nor put back — killed (SIGKILL) part-way, then at the next start a
 * folder it must write made unwritable (immutable as root: `chattr +i`; a plain user's read-only folder is in
 * test/integration/cli-checkpoints-stuck.test.ts) — or failing both ways while it runs. The store must stay usable
 * (this session's and every other's), nothing may be lost (the undo puts the folder back exactly), and one line says
 * in what state the folder is and what to do.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ObjectReader } from '../../main/checkpoints/objects.js';
import { CheckpointService } from '../../main/checkpoints/service.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { SessionStore } from '../../main/sessions/store.js';
import { canImmutable, chattr, HALF, killedRestore, NOW, readFolder as read, write } from '../support/killed-restore.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpstuck');
const locked: string[] = [];
const lock = (p: string) => {
  expect(chattr('+i', p)).toBe(true);
  locked.push(p);
};
const unlock = () => {
  for (const p of locked.splice(0)) chattr('-i', p);
};
afterEach(unlock);

/** A folder checkpointed ("then"), changed since (NOW). */
async function changed() {
  const ws = tmp('ws');
  const home = tmp('home');
  const sessions = new SessionStore(path.join(home, 'sessions'));
  const store = new CheckpointStore(CheckpointStore.dirIn(home), { racyMs: 0, onNotice: () => {} });
  for (const n of ['a', 'b', 'c']) write(ws, `${n}/f.txt`, `${n} then\n`);
  const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
  for (const [rel, text] of Object.entries(NOW)) write(ws, rel, text);
  return { ws, home, sessions, store, cp };
}

describe.skipIf(!canImmutable)('a restore that can neither be finished nor put back (root: chattr +i)', () => {
  it('killed, then a/ and b/ made immutable: the next start sets it aside, the store works on, the undo puts the folder back exactly', async () => {
    const ws = tmp('ws');
    const home = tmp('home');
    const sessions = new SessionStore(path.join(home, 'sessions'));
    const { store, record } = await killedRestore(home, ws);
    const half = read(ws);
    expect(half).toEqual(HALF);
    // The finish writes b/f.txt, the put-back a/f.txt: neither can be written now.
    lock(path.join(ws, 'a'));
    lock(path.join(ws, 'b'));
    const notices: string[] = [];
    const next = new CheckpointStore(store.dir, { racyMs: 0, onNotice: (l) => notices.push(l) });
    await next.recoverNow();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^An interrupted restore of session "s" could neither be finished \(b\/f\.txt: operation not permitted\) nor put back \(a\/f\.txt: operation not permitted\): .* is partly restored\b.*checkpoints undo --session s/);
    expect(notices[0]).not.toMatch(/\n/);
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
    expect(read(ws)).toEqual(half); // nothing more was changed
    // Recorded as the session's last restore, incomplete: what the undo takes back.
    const last = next.lastRestore('s')!;
    expect(last).toMatchObject({ id: record.id, before: record.before, incomplete: expect.stringMatching(/operation not permitted/) });
    // Every store operation works: another session's checkpoint, this session's list and a new checkpoint.
    const other = tmp('other');
    write(other, 'x.txt', 'x\n');
    await expect(next.snapshot({ sessionKey: 'other', root: other, label: 'other' })).resolves.toMatchObject({ files: 1 });
    expect(next.list('s')).toHaveLength(1);
    // Once the folder is writable again: the undo brings back exactly the folder as it was before that restore.
    unlock();
    const service = new CheckpointService({ store: next, sessions });
    const undone = await service.undo('s');
    expect(undone.message).toMatch(/^Undid the last restore/);
    expect(read(ws)).toEqual(NOW);
  });

  it('a restore failing both ways while it runs (b/ made immutable once a/ is written, then a/): one line, no journal, the undo puts it back', async () => {
    const { ws, sessions, store, cp } = await changed();
    const realRead = ObjectReader.prototype.read;
    let reads = 0;
    // Reads 1–3 check the contents, read 4 is a/f.txt's write, read 5 b/f.txt's: before it, b/ and a/ are locked.
    const spy = vi.spyOn(ObjectReader.prototype, 'read').mockImplementation(function (this: ObjectReader, h: string) {
      if (++reads === 5) {
        lock(path.join(ws, 'a'));
        lock(path.join(ws, 'b'));
      }
      return realRead.call(this, h);
    });
    const service = new CheckpointService({ store, sessions });
    let err: Error | undefined;
    try {
      err = await service.restore('s', cp.id, 'files').then(() => undefined, (e: Error) => e);
    } finally {
      spy.mockRestore();
    }
    expect(err?.name).toBe('RestoreFailedError');
    expect(err!.message).toMatch(/^Could not restore .* \(b\/f\.txt: operation not permitted\), nor put it back as it was \(a\/f\.txt: operation not permitted\): \/.* is partly restored\b.*checkpoints undo/);
    expect(existsSync(path.join(store.dir, 'journal.json'))).toBe(false);
    expect(store.lastRestore('s')?.incomplete).toMatch(/operation not permitted/);
    // The store is not blocked.
    await expect(store.preview('s', cp.id)).resolves.toBeDefined();
    unlock();
    await service.undo('s');
    expect(read(ws)).toEqual(NOW);
  });
});
