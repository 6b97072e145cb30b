import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFindTool } from '../../main/tools/find.js';
import { createGrepTool } from '../../main/tools/grep.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';

let root = '';
let ws = '';
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const find = createFindTool();
const grep = createGrepTool();

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-search-')));
  ws = path.join(root, 'ws');
  const files: Record<string, string | Buffer> = {
    '.gitignore': 'build/\n*.log\n!keep.log\n',
    'src/a.ts': 'export const needle = 1;\nline two\nline three\nline four\nneedle again\n',
    'src/b.js': 'no match here\n',
    'src/sub/.gitignore': 'secret.ts\n',
    'src/sub/secret.ts': 'needle hidden\n',
    'src/sub/c.ts': 'NEEDLE upper\n',
    'build/out.ts': 'needle in build\n',
    'debug.log': 'needle in log\n',
    'keep.log': 'needle kept\n',
    'node_modules/pkg/index.ts': 'needle in deps\n',
    '.git/HEAD': 'needle in git\n',
    'bin.dat': Buffer.from('needle\0binary'),
    'many.txt': Array.from({ length: 50 }, (_, i) => `needle ${i}`).join('\n'),
  };
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), content);
  }
  await mkdir(path.join(root, 'outside'));
  await writeFile(path.join(root, 'outside/o.ts'), 'needle outside\n');
  await symlink(path.join(root, 'outside'), path.join(ws, 'src/link-out'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('find', () => {
  it.each([
    ['all .ts files, .gitignore honoured (nested, dirs, negation)', { pattern: '**/*.ts' }, 'src/a.ts\nsrc/sub/c.ts'],
    ['logs: *.log ignored but !keep.log kept', { pattern: '*.log' }, 'keep.log'],
    ['under a folder', { pattern: '*', path: 'src/sub' }, 'src/sub/.gitignore\nsrc/sub/c.ts'],
    ['nothing', { pattern: '*.rs' }, 'No files match "*.rs" in .'],
    ['limit', { pattern: '**/*.ts', limit: 1 }, 'src/a.ts\n[… 1 more not shown (2 total); narrow the pattern]'],
  ])('%s', async (_l, args, expected) => {
    expect((await find.execute(args, ctx())).content).toBe(expected);
  });

  it.each([
    ['an absolute pattern', { pattern: '/etc/*' }, /^find: the pattern must be relative/],
    ['a pattern with ..', { pattern: '../**' }, /^find: the pattern must not contain '\.\.'$/],
    ['a base outside', { pattern: '*', path: 'src/link-out' }, /outside the workspace/],
    ['a file as base', { pattern: '*', path: 'src/a.ts' }, /^find: "src\/a\.ts" is a file, not a directory$/],
  ])('refuses %s', async (_l, args, message) => {
    const run = find.execute(args, ctx());
    await expect(run).rejects.toThrow(ToolError);
    await expect(run).rejects.toThrow(message);
  });
});

describe('grep', () => {
  it('finds matches, honours .gitignore, skips binaries, .git, node_modules and symlinks out', async () => {
    const out = await grep.execute({ pattern: 'needle', glob: '**/*.{ts,log,dat}' }, ctx());
    expect(out.content).toBe('keep.log:1:needle kept\nsrc/a.ts:1:export const needle = 1;\nsrc/a.ts:5:needle again\n[1 binary file skipped]');
  });

  it.each([
    ['ignoreCase', { pattern: 'needle upper', ignoreCase: true }, 'src/sub/c.ts:1:NEEDLE upper\n[1 binary file skipped]'],
    ['literal', { pattern: 'const needle = 1;', literal: true, path: 'src' }, 'src/a.ts:1:export const needle = 1;'],
    ['context lines with separator', { pattern: 'needle', path: 'src/a.ts', context: 1 },
      'src/a.ts:1:export const needle = 1;\nsrc/a.ts-2-line two\n--\nsrc/a.ts-4-line four\nsrc/a.ts:5:needle again'],
    ['match cap', { pattern: 'needle', path: 'many.txt', maxMatches: 2 },
      'many.txt:1:needle 0\nmany.txt:2:needle 1\n[stopped at 2 matches; narrow the pattern or raise maxMatches]'],
    ['no match', { pattern: 'zzz', path: 'src' }, 'No matches for /zzz/ in src'],
  ])('%s', async (_l, args, expected) => {
    expect((await grep.execute(args, ctx())).content).toBe(expected);
  });

  it.each([
    ['a bad regex', { pattern: '(' }, /^grep: invalid regular expression: .*set literal: true/],
    ['a path outside', { pattern: 'x', path: '../outside' }, /outside the workspace/],
    ['context too large', { pattern: 'x', context: 99 }, /^grep: `context` must be an integer from 0 to 10$/],
  ])('refuses %s', async (_l, args, message) => {
    await expect(grep.execute(args, ctx())).rejects.toThrow(message);
  });
});
