/**
 * X5 hard links and devices: the file tools refuse a file with several hard links (another name may be outside the
 * workspace — here a "key" file in a folder next to it), except in node_modules (package-manager stores); devices,
 * FIFOs and sockets are refused before they are opened — shown with a FIFO whose writer stays blocked, which an
 * open for reading (even non-blocking) would wake.
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadTool } from '../../main/tools/read.js';
import { createEditTool } from '../../main/tools/edit.js';
import { createGrepTool } from '../../main/tools/grep.js';
import type { ToolContext } from '../../main/tools/types.js';

let root = '';
let ws = '';
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const read = createReadTool();
const SECRET = 'PRIVATE KEY 0xdeadbeef';

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-special-')));
  ws = path.join(root, 'ws');
  await mkdir(path.join(ws, 'node_modules', 'pkg'), { recursive: true });
  await mkdir(path.join(root, 'store'));
  await mkdir(path.join(root, 'secrets'));
  await writeFile(path.join(root, 'secrets', 'id_key'), `${SECRET}\n`);
  await link(path.join(root, 'secrets', 'id_key'), path.join(ws, 'notes.txt'));
  await writeFile(path.join(root, 'store', 'index.js'), 'module.exports = 1;\n');
  await link(path.join(root, 'store', 'index.js'), path.join(ws, 'node_modules', 'pkg', 'index.js'));
  await writeFile(path.join(ws, 'plain.txt'), 'plain\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('hard links', () => {
  it('a hard-linked file is refused by read, edit and grep; its content never shows', async () => {
    await expect(read.execute({ path: 'notes.txt' }, ctx())).rejects.toThrow(
      '"notes.txt" has 2 hard links, and the others may be files outside the workspace, which cannot be told from here; it was not read',
    );
    await expect(createEditTool().execute({ path: 'notes.txt', edits: [{ oldText: 'PRIVATE', newText: 'x' }] }, ctx())).rejects.toThrow(/hard links/);
    const grep = await createGrepTool().execute({ pattern: 'PRIVATE' }, ctx()).then((r) => r.content, (e: Error) => e.message);
    expect(grep).not.toContain('0xdeadbeef');
    expect(await readFile(path.join(root, 'secrets', 'id_key'), 'utf8')).toBe(`${SECRET}\n`);
  });
  it('in node_modules (pnpm links every file to its store) and with one link, files read as usual', async () => {
    expect((await read.execute({ path: 'node_modules/pkg/index.js' }, ctx())).content).toBe('module.exports = 1;');
    expect((await read.execute({ path: 'plain.txt' }, ctx())).content).toBe('plain');
  });
});

describe('devices, FIFOs and sockets are refused before they are opened', () => {
  it('a FIFO: refused, and its blocked writer is not woken (nothing opened it)', async () => {
    const fifo = path.join(ws, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const marker = path.join(root, 'writer-woke');
    const writer = spawn('sh', ['-c', `echo data > '${fifo}'; touch '${marker}'`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      await expect(read.execute({ path: 'pipe' }, ctx())).rejects.toThrow('"pipe" is a FIFO (named pipe), not a regular file; it was not opened');
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(marker)).toBe(false);
    } finally {
      writer.kill('SIGKILL');
    }
  });
  it('a socket', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(path.join(ws, 'sock'), r));
    try {
      await expect(read.execute({ path: 'sock' }, ctx())).rejects.toThrow('"sock" is a socket, not a regular file; it was not opened');
    } finally {
      server.close();
    }
  });
  it.runIf(process.getuid?.() === 0)('a character device (made with mknod, as root)', async () => {
    execFileSync('mknod', [path.join(ws, 'zero'), 'c', '1', '5']);
    await expect(read.execute({ path: 'zero' }, ctx())).rejects.toThrow('"zero" is a device, not a regular file; it was not opened');
  });
});
