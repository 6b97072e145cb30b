import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListTool } from '../../main/tools/list.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';

let root = '';
let ws = '';
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const list = createListTool();

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-list-')));
  ws = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  await mkdir(path.join(ws, 'a-dir'), { recursive: true });
  await mkdir(path.join(ws, 'many'));
  await mkdir(outside);
  await writeFile(path.join(ws, 'b.txt'), 'abc');
  await writeFile(path.join(ws, '.hidden'), '');
  await writeFile(path.join(ws, 'big.bin'), Buffer.alloc(1536));
  await symlink(outside, path.join(ws, 'link-out'));
  await symlink('a-dir', path.join(ws, 'link-in'));
  await symlink('b.txt', path.join(ws, 'file-link'));
  await symlink('nope', path.join(ws, 'broken'));
  for (const name of ['e', 'd', 'c', 'b', 'a']) await writeFile(path.join(ws, 'many', name), name);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('list', () => {
  const rootListing = [
    '.hidden  (0 B)',
    'a-dir/',
    'b.txt  (3 B)',
    'big.bin  (1.5 KB)',
    'broken -> (broken link)',
    'file-link -> b.txt  (3 B)',
    'link-in/ -> a-dir/',
    'link-out -> (outside workspace)',
    'many/',
  ].join('\n');

  it.each([
    ['no path', {}, rootListing],
    ["'.'", { path: '.' }, rootListing],
    ['the absolute workspace path', { path: '<ws>' }, rootListing],
    ['an empty folder', { path: 'a-dir' }, '[empty directory]'],
    ['a folder through an inside symlink', { path: 'link-in' }, '[empty directory]'],
    ['a folder, sorted', { path: 'many' }, 'a  (1 B)\nb  (1 B)\nc  (1 B)\nd  (1 B)\ne  (1 B)'],
  ])('lists %s', async (_label, args, expected) => {
    const a = 'path' in args ? { path: args.path.replace('<ws>', ws) } : args;
    expect((await list.execute(a, ctx())).content).toBe(expected);
  });

  it('caps the number of entries with a note', async () => {
    const capped = createListTool({ maxEntries: 3 });
    const out = await capped.execute({ path: 'many' }, ctx());
    expect(out.content).toBe('a  (1 B)\nb  (1 B)\nc  (1 B)\n[… 2 more entries not shown (5 total)]');
    expect(out.details).toMatchObject({ total: 5, shown: 3 });
  });

  it.each([
    ['a file', { path: 'b.txt' }, /^list: "b\.txt" is a file, not a directory; use read to see it$/],
    ['a symlink to outside', { path: 'link-out' }, /through a symlink/],
    ['the parent folder', { path: '..' }, /climbs out of the workspace/],
    ['a missing folder', { path: 'nope' }, /^No such file or directory: nope$/],
    ['a non-string path', { path: ['a'] }, /^list: `path` must be a string$/],
  ])('refuses %s', async (_label, args, message) => {
    const run = list.execute(args, ctx());
    await expect(run).rejects.toThrow(ToolError);
    await expect(run).rejects.toThrow(message);
  });
});
