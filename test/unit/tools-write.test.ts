import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteTool } from '../../main/tools/write.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';

let root = '';
let ws = '';
let outside = '';
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const write = createWriteTool();

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-write-')));
  ws = path.join(root, 'ws');
  outside = path.join(root, 'outside');
  await mkdir(path.join(ws, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(ws, 'real.txt'), 'old');
  await symlink('real.txt', path.join(ws, 'alias.txt'));
  await symlink(outside, path.join(ws, 'out'));
  await symlink(path.join(outside, 'planted.txt'), path.join(ws, 'dangling-out'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('write', () => {
  it('creates parent folders and reports the byte count', async () => {
    const out = await write.execute({ path: 'new/deep/héllo.txt', content: 'héllo' }, ctx());
    expect(out.content).toBe('Wrote 6 bytes to new/deep/héllo.txt');
    expect(out.details).toMatchObject({ created: true, bytes: 6 });
    await expect(readFile(path.join(ws, 'new/deep/héllo.txt'), 'utf8')).resolves.toBe('héllo');
  });

  it('overwrites atomically, keeps the mode and leaves no temp file', async () => {
    const file = path.join(ws, 'sub/script.sh');
    await writeFile(file, 'old');
    await chmod(file, 0o754);
    const out = await write.execute({ path: 'sub/script.sh', content: '#!/bin/sh\n' }, ctx());
    expect(out.content).toBe('Wrote 10 bytes to sub/script.sh');
    expect(out.details).toMatchObject({ created: false });
    expect(await readFile(file, 'utf8')).toBe('#!/bin/sh\n');
    expect((await stat(file)).mode & 0o777).toBe(0o754);
    expect(await readdir(path.join(ws, 'sub'))).toEqual(['script.sh']);
  });

  it('writes an empty file', async () => {
    const out = await write.execute({ path: 'empty.txt', content: '' }, ctx());
    expect(out.content).toBe('Wrote 0 bytes to empty.txt');
  });

  it('writes through an inside symlink to its target and keeps the link', async () => {
    const out = await write.execute({ path: 'alias.txt', content: 'new' }, ctx());
    expect(out.content).toBe('Wrote 3 bytes to real.txt');
    expect(await readFile(path.join(ws, 'real.txt'), 'utf8')).toBe('new');
    expect((await lstat(path.join(ws, 'alias.txt'))).isSymbolicLink()).toBe(true);
  });

  it.each([
    ['a .. escape', { path: '../escaped.txt', content: 'x' }, /climbs out of the workspace/, 'escaped.txt'],
    ['an absolute path outside', { path: '<outside>/abs.txt', content: 'x' }, /absolute path outside/, 'outside/abs.txt'],
    ['a missing folder under a symlink to outside', { path: 'out/newdir/f.txt', content: 'x' }, /through a symlink/, 'outside/newdir'],
    ['a dangling symlink to outside', { path: 'dangling-out', content: 'x' }, /through a symlink/, 'outside/planted.txt'],
  ])('refuses %s and creates nothing', async (_label, args, message, mustNotExist) => {
    const run = write.execute({ ...args, path: args.path.replace('<outside>', outside) }, ctx());
    await expect(run).rejects.toThrow(ToolError);
    await expect(run).rejects.toThrow(message);
    await expect(stat(path.join(root, mustNotExist))).rejects.toThrow(/ENOENT/);
  });

  it.each([
    ['a directory', { path: 'sub', content: 'x' }, /^write: "sub" is a directory$/],
    ['the workspace itself', { path: '.', content: 'x' }, /^write: the workspace folder itself cannot be written/],
    ['a path through a file', { path: 'real.txt/child', content: 'x' }, /which is a file, not a folder/],
    ['missing content', { path: 'a.txt' }, /^write: `content` is required$/],
    ['non-string content', { path: 'a.txt', content: 42 }, /^write: `content` must be a string$/],
    ['a NUL in the path', { path: 'a\0.txt', content: 'x' }, /NUL byte/],
  ])('refuses %s', async (_label, args, message) => {
    await expect(write.execute(args, ctx())).rejects.toThrow(message);
  });
});
