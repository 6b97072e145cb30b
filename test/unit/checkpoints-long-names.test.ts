/**
 * X2: what a restore moves aside is renamed `NAME.agentdesk-kept-TIME` (≈ 29 bytes more). A name near the 255-byte
 * limit used to make that rename fail (ENAMETOOLONG) — the restore refused — whatever stood in the way. Now a long
 * name is cut (on a character boundary) and a short hash of it added: the rename always fits, two long names that
 * begin alike stay apart, and the undo puts each back under its exact name (recorded with the restore).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveBack } from '../../main/checkpoints/apply.js';
import { keptAsideName, keptAsideOrigin, NAME_MAX_BYTES } from '../../main/checkpoints/kept-name.js';
import { CheckpointService } from '../../main/checkpoints/service.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { SessionStore } from '../../main/sessions/store.js';
import { write } from '../support/killed-restore.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cplong');
const bytes = (s: string) => Buffer.byteLength(s);
const AT = 1764669600000;

/** Names at or near the limit: ASCII, two-byte, three-byte and four-byte (surrogate pair) characters. */
const NAMES: [string, string][] = [
  ['250 ASCII bytes', `${'n'.repeat(246)}.txt`],
  ['254 bytes of é (2 bytes each)', 'é'.repeat(127)],
  ['255 bytes of 日 (3 bytes each)', '日'.repeat(85)],
  ['252 bytes of 😀 (4 bytes, a surrogate pair each)', '😀'.repeat(63)],
  ['mixed, 251 bytes', `${'a'.repeat(100)}${'é'.repeat(20)}${'日'.repeat(20)}${'😀'.repeat(7)}e`],
];

describe('the name of what a restore moves aside', () => {
  it.each(NAMES)('%s: fits in 255 bytes, whole characters, stable, and leads back to the name', (_label, name) => {
    expect(bytes(name)).toBeGreaterThan(NAME_MAX_BYTES - 30);
    expect(bytes(name)).toBeLessThanOrEqual(NAME_MAX_BYTES);
    const aside = keptAsideName(`some/dir/${name}`, AT);
    const base = aside.slice('some/dir/'.length);
    expect(bytes(base)).toBeLessThanOrEqual(NAME_MAX_BYTES);
    expect(base).toMatch(new RegExp(`~[0-9a-f]{12}\\.agentdesk-kept-${AT}$`));
    expect(Buffer.from(base, 'utf8').toString('utf8')).toBe(base); // no half character (no lone surrogate either)
    expect(base).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(name.startsWith(base.slice(0, base.indexOf('~')))).toBe(true);
    expect(keptAsideName(`some/dir/${name}`, AT)).toBe(aside);
    // Led back by the name recorded with the restore; without it (a log from before names were kept, when no long
    // name could be moved aside) only to the cut name itself.
    expect(keptAsideOrigin(aside, AT, { [aside]: `some/dir/${name}` })).toBe(`some/dir/${name}`);
    expect(keptAsideOrigin(aside, AT)).toBe(aside.slice(0, -`.agentdesk-kept-${AT}`.length));
  });

  it('a short name keeps the old form (logs written before are understood); two long names alike stay apart; a crafted record leads nowhere', () => {
    expect(keptAsideName('src/a.txt', AT)).toBe(`src/a.txt.agentdesk-kept-${AT}`);
    expect(keptAsideOrigin(`src/a.txt.agentdesk-kept-${AT}`, AT)).toBe('src/a.txt');
    const x = `${'x'.repeat(240)}-1`;
    const y = `${'x'.repeat(240)}-2`;
    expect(keptAsideName(x, AT)).not.toBe(keptAsideName(y, AT));
    // A record that pairs a copy with another path than the one it was made from is ignored.
    expect(keptAsideOrigin(keptAsideName(x, AT), AT, { [keptAsideName(x, AT)]: y })).toBeUndefined();
    expect(keptAsideOrigin(`a.txt.agentdesk-kept-${AT}`, AT, { [`a.txt.agentdesk-kept-${AT}`]: '../../etc/passwd' })).toBeUndefined();
  });

  it('moveBack with a crafted names record moves nothing outside its own copies', () => {
    const ws = tmp('mb');
    write(ws, `a.txt.agentdesk-kept-${AT}`, 'copy\n');
    moveBack(ws, [`a.txt.agentdesk-kept-${AT}`], AT, undefined, { [`a.txt.agentdesk-kept-${AT}`]: 'b.txt' });
    expect(readdirSync(ws)).toEqual([`a.txt.agentdesk-kept-${AT}`]);
  });
});

function smallCapStore() {
  const ws = tmp('ws');
  const store = new CheckpointStore(tmp('home'), { racyMs: 0, onNotice: () => {}, now: () => AT, settings: () => ({ keep: 100, maxAgeMs: 1e15, maxFileBytes: 1000, maxTotalBytes: 1e9, maxEntries: 1e6 }) });
  const service = new CheckpointService({ store, sessions: new SessionStore(tmp('sessions')) });
  return { ws, store, service };
}
const kept = (ws: string) => readdirSync(ws).filter((n) => n.includes('.agentdesk-kept-'));

describe('a restore over things with long names', () => {
  it.each(NAMES)('%s: a file ignored now where the checkpoint has it is kept aside, and the undo puts it back exactly', async (_label, name) => {
    const { ws, store, service } = smallCapStore();
    write(ws, name, 'old\n');
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, '.gitignore', `${name}\n`);
    write(ws, name, "the person's edit\n");
    const { message } = await service.restore('s', cp.id, 'files');
    expect(readFileSync(path.join(ws, name), 'utf8')).toBe('old\n');
    expect(kept(ws)).toHaveLength(1);
    expect(bytes(kept(ws)[0]!)).toBeLessThanOrEqual(NAME_MAX_BYTES);
    expect(readFileSync(path.join(ws, kept(ws)[0]!), 'utf8')).toBe("the person's edit\n");
    expect(store.lastRestore('s')!.keep).toEqual(kept(ws));
    expect(message).toContain('kept aside (not in a checkpoint)');
    await service.undo('s');
    expect(readdirSync(ws).sort()).toEqual(['.gitignore', name].sort());
    expect(readFileSync(path.join(ws, name), 'utf8')).toBe("the person's edit\n");
  });

  it('an ignored folder with a long name where the checkpoint has a file, and two long names that begin alike: kept apart, put back', async () => {
    const { ws, store, service } = smallCapStore();
    const dir = `${'d'.repeat(240)}-dir`;
    const [x, y] = [`${'x'.repeat(240)}-1`, `${'x'.repeat(240)}-2`];
    for (const n of [dir, x, y]) write(ws, n, `${n.slice(-5)} then\n`);
    const cp = await store.snapshot({ sessionKey: 's', root: ws, label: 'before' });
    write(ws, '.gitignore', `${dir}/\n${x}\n${y}\n`);
    rmSync(path.join(ws, dir));
    write(ws, `${dir}/inside.txt`, 'the folder the person made\n');
    write(ws, x, 'x edited\n');
    write(ws, y, 'y edited\n');
    await service.restore('s', cp.id, 'files');
    expect(readFileSync(path.join(ws, dir), 'utf8')).toBe(`${dir.slice(-5)} then\n`);
    expect(kept(ws)).toHaveLength(3);
    expect(new Set(kept(ws).map((n) => n.slice(0, n.indexOf('.agentdesk-kept-')))).size).toBe(3);
    await service.undo('s');
    expect(readdirSync(ws).sort()).toEqual(['.gitignore', dir, x, y].sort());
    expect(readFileSync(path.join(ws, dir, 'inside.txt'), 'utf8')).toBe('the folder the person made\n');
    expect(readFileSync(path.join(ws, x), 'utf8')).toBe('x edited\n');
    expect(readFileSync(path.join(ws, y), 'utf8')).toBe('y edited\n');
  });
});
