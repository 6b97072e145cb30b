import { mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../../main/tools/apply-patch.js';
import { applyEdits, createEditTool } from '../../main/tools/edit.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';

let root = '';
let ws = '';
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const edit = createEditTool();
const patch = createApplyPatchTool();

beforeEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-edit-')));
  ws = path.join(root, 'ws');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await writeFile(path.join(root, 'outside.txt'), 'alpha\n');
  await writeFile(path.join(ws, 'src/a.ts'), 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n', { mode: 0o755 });
  await writeFile(path.join(ws, 'dup.txt'), 'x\nx\nx\n');
  await writeFile(path.join(ws, 'crlf.txt'), 'one\r\ntwo\r\n');
  await writeFile(path.join(ws, 'bin.dat'), Buffer.from([1, 0, 2]));
  await symlink(path.join(root, 'outside.txt'), path.join(ws, 'out.txt'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('applyEdits (pure)', () => {
  it.each([
    ['single unique', 'a b c', [{ oldText: 'b', newText: 'B' }], 'a B c'],
    ['in order, the second sees the first', 'a b', [{ oldText: 'a', newText: 'z' }, { oldText: 'z b', newText: 'ok' }], 'ok'],
    ['replaceAll', 'x x x', [{ oldText: 'x', newText: 'y', replaceAll: true }], 'y y y'],
    ['newText with $& is literal', 'a', [{ oldText: 'a', newText: '$&$&' }], '$&$&'],
  ])('%s', (_l, text, edits, expected) => {
    expect(applyEdits(text, edits, 'f')).toBe(expected);
  });
  it.each([
    ['not found', 'abc', [{ oldText: 'q', newText: '' }], /^edit: oldText was not found in "f"; read the file/],
    ['three matches', 'x x x', [{ oldText: 'x', newText: 'y' }], /^edit: oldText matches 3 times in "f"; include more surrounding lines/],
    ['second edit fails', 'a b', [{ oldText: 'a', newText: 'b' }, { oldText: 'b', newText: 'c' }], /^edit: edit 2 of 2: oldText matches 2 times/],
    ['CRLF hint', 'one\r\ntwo', [{ oldText: 'one\ntwo', newText: '' }], /the file uses CRLF line endings/],
  ])('refuses: %s', (_l, text, edits, message) => {
    expect(() => applyEdits(text, edits, 'f')).toThrow(message);
  });
});

describe('edit', () => {
  it('replaces, keeps the mode and returns a diff', async () => {
    const out = await edit.execute({ path: 'src/a.ts', edits: [{ oldText: 'const b = 2;', newText: 'const b = 3;' }] }, ctx());
    expect(await readFile(path.join(ws, 'src/a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
    expect((await stat(path.join(ws, 'src/a.ts'))).mode & 0o777).toBe(0o755);
    expect(out.content).toContain('-const b = 2;\n+const b = 3;');
    expect(await readdir(path.join(ws, 'src'))).toEqual(['a.ts']);
  });

  it('leaves the file unchanged when any edit fails', async () => {
    const run = edit.execute({ path: 'dup.txt', edits: [{ oldText: 'x\nx\nx', newText: 'y' }, { oldText: 'zzz', newText: '' }] }, ctx());
    await expect(run).rejects.toThrow(/^edit: edit 2 of 2: oldText was not found in "dup\.txt"/);
    expect(await readFile(path.join(ws, 'dup.txt'), 'utf8')).toBe('x\nx\nx\n');
  });

  it.each([
    ['ambiguous', { path: 'dup.txt', edits: [{ oldText: 'x', newText: 'y' }] }, /matches 3 times in "dup\.txt"/],
    ['a symlink out', { path: 'out.txt', edits: [{ oldText: 'alpha', newText: 'pwned' }] }, /outside the workspace/],
    ['a binary file', { path: 'bin.dat', edits: [{ oldText: 'a', newText: 'b' }] }, /^edit: "bin\.dat" looks like a binary file$/],
    ['a folder', { path: 'src', edits: [{ oldText: 'a', newText: 'b' }] }, /^edit: "src" is a directory, not a file$/],
    ['a missing file', { path: 'nope.ts', edits: [{ oldText: 'a', newText: 'b' }] }, /^No such file or directory: nope\.ts$/],
    ['empty edits', { path: 'dup.txt', edits: [] }, /^edit: `edits` must not be empty$/],
    ['empty oldText', { path: 'dup.txt', edits: [{ oldText: '', newText: 'b' }] }, /^edit: `oldText` must not be empty$/],
  ])('refuses %s', async (_l, args, message) => {
    const run = edit.execute(args, ctx());
    await expect(run).rejects.toThrow(ToolError);
    await expect(run).rejects.toThrow(message);
    expect(await readFile(path.join(root, 'outside.txt'), 'utf8')).toBe('alpha\n');
  });
});

const PATCH_A = `--- a/src/a.ts
+++ b/src/a.ts
@@ -1,3 +1,3 @@
 const a = 1;
-const b = 2;
+const b = 42;
 const a2 = 1;
`;

describe('apply_patch', () => {
  it('patches a file', async () => {
    const out = await patch.execute({ patch: PATCH_A }, ctx());
    expect(out.content).toBe('Applied the patch: patched src/a.ts');
    expect(await readFile(path.join(ws, 'src/a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 42;\nconst a2 = 1;\n');
  });

  it('creates and deletes files', async () => {
    const create = '--- /dev/null\n+++ b/new/dir/n.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n';
    const del = '--- a/dup.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-x\n-x\n-x\n';
    const out = await patch.execute({ patch: create + del }, ctx());
    expect(out.content).toBe('Applied the patch: created new/dir/n.txt, deleted dup.txt');
    expect(await readFile(path.join(ws, 'new/dir/n.txt'), 'utf8')).toBe('hello\nworld\n');
    await expect(stat(path.join(ws, 'dup.txt'))).rejects.toThrow();
  });

  it('is atomic: a failing hunk in the second file leaves the first untouched', async () => {
    const bad = '--- a/dup.txt\n+++ b/dup.txt\n@@ -1,2 +1,2 @@\n-nope\n+x\n x\n';
    await expect(patch.execute({ patch: PATCH_A + bad }, ctx())).rejects.toThrow(
      /^apply_patch: the hunks for "dup\.txt" do not apply .*nothing was changed$/,
    );
    expect(await readFile(path.join(ws, 'src/a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
  });

  it.each([
    ['no hunks', 'just text', /^apply_patch: no hunks found/],
    ['a path outside', '--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n', /outside the workspace/],
    ['through a symlink out', '--- a/out.txt\n+++ b/out.txt\n@@ -1 +1 @@\n-alpha\n+pwned\n', /outside the workspace/],
    ['creating an existing file', '--- /dev/null\n+++ b/dup.txt\n@@ -0,0 +1 @@\n+y\n', /"dup\.txt" already exists/],
  ])('refuses %s', async (_l, text, message) => {
    await expect(patch.execute({ patch: text }, ctx())).rejects.toThrow(message);
    expect(await readFile(path.join(root, 'outside.txt'), 'utf8')).toBe('alpha\n');
  });
});
