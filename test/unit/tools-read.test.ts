import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadTool } from '../../main/tools/read.js';
import { mkfifoSync } from '../support/mkfifo.js';
import { ToolError, type ToolContext } from '../../main/tools/types.js';
import { flatImage } from '../support/images.js';

let root = '';
let ws = '';
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const tenLines = Array.from({ length: 10 }, (_, i) => `line${String(i + 1).padStart(2, '0')}`).join('\n') + '\n';

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-read-')));
  ws = path.join(root, 'ws');
  await mkdir(path.join(ws, 'sub'), { recursive: true });
  await writeFile(path.join(root, 'secret.txt'), 'secret');
  await writeFile(path.join(ws, 'hello.txt'), 'hello\nworld\n');
  await writeFile(path.join(ws, 'ten.txt'), tenLines);
  await writeFile(path.join(ws, 'crlf.txt'), 'a\r\nb\r\n');
  await writeFile(path.join(ws, 'empty.txt'), '');
  await writeFile(path.join(ws, 'long.txt'), 'x'.repeat(100));
  await writeFile(path.join(ws, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
  await symlink(path.join(root, 'secret.txt'), path.join(ws, 'leak.txt'));
  await symlink('/dev/zero', path.join(ws, 'zero'));
  mkfifoSync(path.join(ws, 'pipe'));
  await writeFile(path.join(ws, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('read', () => {
  const read = createReadTool({ capChars: 20 });
  const readBig = createReadTool();

  it.each([
    ['whole file', { path: 'hello.txt' }, 'hello\nworld'],
    ['absolute path inside', { path: '<ws>/hello.txt' }, 'hello\nworld'],
    ['CRLF lines', { path: 'crlf.txt' }, 'a\nb'],
    ['empty file', { path: 'empty.txt' }, '[empty file]'],
    ['offset and limit', { path: 'ten.txt', offset: 3, limit: 2 }, 'line03\nline04\n\n[showing lines 3–4 of 10; use offset/limit to read more]'],
    ['line numbers', { path: 'ten.txt', offset: 2, limit: 2, lineNumbers: true }, '2\tline02\n3\tline03\n\n[showing lines 2–3 of 10; use offset/limit to read more]'],
    ['offset to the end', { path: 'ten.txt', offset: 9 }, 'line09\nline10\n\n[showing lines 9–10 of 10; use offset/limit to read more]'],
    ['null offset means none', { path: 'hello.txt', offset: null }, 'hello\nworld'],
  ])('%s', async (_label, args, expected) => {
    const a = { ...args, path: args.path.replace('<ws>', ws) };
    const out = await readBig.execute(a, ctx());
    expect(out.content).toBe(expected);
  });

  it('caps output at the character limit with a note of what was cut', async () => {
    const out = await read.execute({ path: 'ten.txt' }, ctx());
    expect(out.content).toBe('line01\nline02\nline03\n\n[truncated: showing lines 1–3 of 10; use offset/limit]');
    expect(out.details).toMatchObject({ totalLines: 10, lastLine: 3 });
  });

  it('cuts a single line longer than the cap', async () => {
    const out = await read.execute({ path: 'long.txt' }, ctx());
    expect(out.content).toBe(`${'x'.repeat(20)}\n\n[truncated: line 1 is 100 chars long, showing the first 20; use offset/limit]`);
  });

  it.each([
    ['a directory', { path: 'sub' }, /^read: "sub" is a directory; use list to see its entries$/],
    ['a binary file', { path: 'image.bin' }, /^read: "image\.bin" looks like a binary file \(NUL byte in the first 8 KB\)/],
    ['a missing file', { path: 'nope.txt' }, /^No such file or directory: nope\.txt$/],
    ['a path outside', { path: '../secret.txt' }, /outside the workspace/],
    ['a symlink to outside', { path: 'leak.txt' }, /through a symlink/],
    ['a FIFO (never blocks)', { path: 'pipe' }, /^"pipe" is a FIFO \(named pipe\), not a regular file; it was not opened$/],
    ['a symlink to a device', { path: 'zero' }, /^Path "zero" is outside the workspace: it resolves through a symlink to "\/dev\/zero"$/],
    ['a device by absolute path', { path: '/dev/zero' }, /^Path "\/dev\/zero" is outside the workspace: it is an absolute path/],
    ['an overlong path', { path: 'a/'.repeat(2100) }, /^Path is too long \(4200 bytes; the limit is 4096\)$/],
    ['an overlong name', { path: 'n'.repeat(300) }, /^Path has a name longer than 255 bytes/],
    ['a NUL byte', { path: 'hello.txt\0.sh' }, /^Path contains a NUL byte/],
    ['an offset past the end', { path: 'ten.txt', offset: 11 }, /^read: offset 11 is past the end of "ten\.txt" \(10 lines\)$/],
    ['no path', {}, /^read: `path` is required$/],
    ['a non-string path', { path: 3 }, /^read: `path` must be a string$/],
    ['offset 0', { path: 'ten.txt', offset: 0 }, /^read: `offset` must be a positive integer \(1-based line number to start at\)$/],
    ['a fractional limit', { path: 'ten.txt', limit: 1.5 }, /^read: `limit` must be a positive integer/],
    ['an unknown argument', { path: 'ten.txt', lines: 3 }, /^read: unknown argument `lines` \(allowed: path, offset, limit, lineNumbers\)$/],
  ])('refuses %s', async (_label, args, message) => {
    const run = readBig.execute(args, ctx());
    await expect(run).rejects.toThrow(ToolError);
    await expect(run).rejects.toThrow(message);
  });

  it('returns an image file as an image (X3), with its name, type, size and pixels in the text', async () => {
    const png = await flatImage(40, 30, 'png');
    await writeFile(path.join(ws, 'real.png'), png);
    const out = await readBig.execute({ path: 'real.png' }, ctx());
    expect(out.content).toBe(`real.png: PNG image, ${png.length} B, 40×30 px (the image follows)`);
    expect(out.images).toEqual([{ type: 'image', mimeType: 'image/png', data: png.toString('base64'), name: 'real.png', bytes: png.length, width: 40, height: 30 }]);
  });

  it('names an image that does not decode instead of sending it', async () => {
    const out = await readBig.execute({ path: 'pic.png' }, ctx());
    expect(out.content).toBe('pic.png: PNG image, 12 B — it cannot be decoded as an image, so it is not shown');
    expect(out.images).toBeUndefined();
  });

  it('refuses arguments that are not an object', async () => {
    await expect(readBig.execute(null as unknown as Record<string, unknown>, ctx())).rejects.toThrow(
      /^read: arguments must be a JSON object$/,
    );
  });
});
