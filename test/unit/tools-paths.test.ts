import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, realWorkspace, resolveInWorkspace } from '../../main/tools/paths.js';
import { ToolError } from '../../main/tools/types.js';

let root = '';
let ws = '';

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-paths-')));
  ws = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  await mkdir(path.join(ws, 'dir/nested'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(ws, 'a.txt'), 'a');
  await writeFile(path.join(ws, 'dir/nested/deep.txt'), 'deep');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link-out-file'));
  await symlink(outside, path.join(ws, 'link-out-dir'));
  await symlink('dir/nested', path.join(ws, 'link-in'));
  await symlink(path.join(outside, 'not-yet'), path.join(ws, 'dangling-out'));
  await symlink('dir/new.txt', path.join(ws, 'dangling-in'));
  await symlink('loop', path.join(ws, 'loop'));
  await symlink(ws, path.join(root, 'ws-alias'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `<ws>` and `<alias>` are replaced by the workspace path and a symlink to it. */
const expand = (input: string): string =>
  input.replace('<ws>', ws).replace('<alias>', path.join(root, 'ws-alias')).replace('<root>', root);

type Case = [label: string, input: string, allowMissing: boolean, expected: { ok: string } | { error: RegExp }];

const cases: Case[] = [
  ['file inside', 'a.txt', false, { ok: 'a.txt' }],
  ['nested file', 'dir/nested/deep.txt', false, { ok: 'dir/nested/deep.txt' }],
  ['dot', '.', false, { ok: '' }],
  ['.. that stays inside', './dir/../a.txt', false, { ok: 'a.txt' }],
  ['..', '..', false, { error: /"\.\." is outside the workspace: it climbs out of the workspace with '\.\.'/ }],
  ['a/../../x', 'a/../../x', false, { error: /"a\/\.\.\/\.\.\/x" is outside the workspace: it climbs out/ }],
  ['.. to a sibling', '../outside/secret.txt', false, { error: /climbs out/ }],
  ['absolute outside', '/etc/passwd', false, { error: /"\/etc\/passwd" is outside the workspace: it is an absolute path/ }],
  ['absolute outside, missing', '<root>/outside/new.txt', true, { error: /absolute path outside/ }],
  ['absolute inside', '<ws>/dir/nested/deep.txt', false, { ok: 'dir/nested/deep.txt' }],
  ['absolute root itself', '<ws>', false, { ok: '' }],
  ['absolute inside through an alias of the workspace', '<alias>/a.txt', false, { ok: 'a.txt' }],
  ['symlink to an outside file', 'link-out-file', false, { error: /"link-out-file" is outside the workspace: it resolves through a symlink to ".*outside\/secret\.txt"/ }],
  ['symlink to an outside dir', 'link-out-dir', false, { error: /through a symlink/ }],
  ['child of a symlink to an outside dir', 'link-out-dir/secret.txt', false, { error: /through a symlink/ }],
  ['symlink inside → inside', 'link-in/deep.txt', false, { ok: 'dir/nested/deep.txt' }],
  ['NUL byte', 'a\0.txt', false, { error: /Path contains a NUL byte: "a\\u0000\.txt"/ }],
  ['empty', '', false, { error: /^Path is empty$/ }],
  ['blank', '   ', false, { error: /^Path is empty$/ }],
  ['home-relative', '~/notes.txt', true, { error: /refers to the home folder/ }],
  ['missing file', 'missing.txt', false, { error: /^No such file or directory: missing\.txt$/ }],
  ['missing file, allowMissing', 'missing.txt', true, { ok: 'missing.txt' }],
  ['missing parents, allowMissing', 'new/deeper/file.txt', true, { ok: 'new/deeper/file.txt' }],
  ['missing parent under an escaping symlink', 'link-out-dir/newdir/file.txt', true, { error: /through a symlink/ }],
  ['dangling symlink pointing outside', 'dangling-out', true, { error: /through a symlink to ".*outside\/not-yet"/ }],
  ['dangling symlink pointing inside', 'dangling-in', true, { ok: 'dir/new.txt' }],
  ['through a file', 'a.txt/child', true, { error: /goes through "a\.txt", which is a file, not a folder/ }],
  ['symlink loop', 'loop', true, { error: /too many levels of symbolic links/ }],
];

describe('resolveInWorkspace', () => {
  it.each(cases)('%s', async (_label, input, allowMissing, expected) => {
    const run = resolveInWorkspace(ws, expand(input), { allowMissing });
    if ('ok' in expected) {
      await expect(run).resolves.toBe(path.join(ws, expected.ok));
    } else {
      await expect(run).rejects.toThrow(ToolError);
      await expect(run).rejects.toThrow(expected.error);
    }
  });
});

describe('realWorkspace', () => {
  it('returns the real path of a folder reached through a symlink', async () => {
    await expect(realWorkspace(path.join(root, 'ws-alias'))).resolves.toBe(ws);
  });
  it.each([
    ['missing folder', 'nope', /^Workspace folder does not exist: .*nope$/],
    ['a file', 'ws/a.txt', /^Workspace path is not a folder: .*a\.txt$/],
    ['empty', '', /^Workspace folder is not set$/],
  ])('refuses %s', async (_label, rel, message) => {
    const dir = rel === '' ? '' : path.join(root, rel);
    await expect(realWorkspace(dir)).rejects.toThrow(message);
  });
});

describe('isInside', () => {
  it.each([
    ['/w', '/w', true],
    ['/w', '/w/a', true],
    ['/w', '/w/..a', true],
    ['/w', '/wx', false],
    ['/w', '/', false],
    ['/w', '/other/w', false],
  ])('%s contains %s: %s', (rootDir, candidate, inside) => {
    expect(isInside(rootDir, candidate)).toBe(inside);
  });
});
