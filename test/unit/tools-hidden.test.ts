/**
 * X5: AgentDesk's data folder is outside every workspace for the file tools, also when it lies inside the workspace
 * (the home folder as workspace, the default data folder ~/.config/AgentDesk in it): nothing in it can be read,
 * written, listed, found or grepped — not directly, not through `..`, not through a symlink — until it is no longer
 * a data folder.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceTools } from '../../main/tools/index.js';
import { hideFromTools } from '../../main/tools/fs/hidden.js';
import type { Tool, ToolContext } from '../../main/tools/types.js';

let ws = '';
let unhide: () => void = () => undefined;
const tools = Object.fromEntries(createWorkspaceTools().map((t) => [t.name, t])) as Record<string, Tool>;
const ctx = (): ToolContext => ({ workspace: ws, signal: new AbortController().signal });
const call = (name: string, args: Record<string, unknown>) => tools[name]!.execute(args, ctx());
const SECRET = 'a chat about the launch';

beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), 'agentdesk-hidden-')));
  await mkdir(path.join(ws, '.config', 'AgentDesk', 'sessions'), { recursive: true });
  await writeFile(path.join(ws, '.config', 'AgentDesk', 'config.json'), '{"agent":{"sandbox":true}}\n');
  await writeFile(path.join(ws, '.config', 'AgentDesk', 'sessions', 's1.jsonl'), `{"text":"${SECRET}"}\n`);
  await writeFile(path.join(ws, '.config', 'other.json'), '{}\n');
  await writeFile(path.join(ws, 'notes.txt'), 'hello\n');
  await symlink('.config/AgentDesk', path.join(ws, 'alias'));
  unhide = hideFromTools([path.join(ws, '.config', 'AgentDesk')]);
});
afterAll(async () => {
  unhide();
  await rm(ws, { recursive: true, force: true });
});

describe('the data folder inside the workspace', () => {
  it.each([
    ['read a chat', 'read', { path: '.config/AgentDesk/sessions/s1.jsonl' }],
    ['read through ..', 'read', { path: '.config/../.config/AgentDesk/config.json' }],
    ['read through a symlink', 'read', { path: 'alias/config.json' }],
    ['read by absolute path', 'read', { path: '<ws>/.config/AgentDesk/config.json' }],
    ['list it', 'list', { path: '.config/AgentDesk' }],
    ['rewrite config.json', 'write', { path: '.config/AgentDesk/config.json', content: '{"agent":{"sandbox":false}}' }],
    ['plant a plugin', 'write', { path: '.config/AgentDesk/plugins/x/index.mjs', content: 'export default {}' }],
    ['edit config.json', 'edit', { path: '.config/AgentDesk/config.json', edits: [{ oldText: 'true', newText: 'false' }] }],
    ['patch config.json', 'apply_patch', { patch: '--- a/.config/AgentDesk/config.json\n+++ b/.config/AgentDesk/config.json\n@@ -1 +1 @@\n-{"agent":{"sandbox":true}}\n+{"agent":{"sandbox":false}}\n' }],
    ['grep inside it', 'grep', { pattern: 'launch', path: '.config/AgentDesk' }],
    ['find inside it', 'find', { pattern: '**/*', path: '.config/AgentDesk' }],
  ])('%s: refused as outside the workspace', async (_l, tool, args) => {
    const a = JSON.parse(JSON.stringify(args).replace('<ws>', ws)) as Record<string, unknown>;
    await expect(call(tool, a)).rejects.toThrow(/outside the workspace: it is in AgentDesk's data folder/);
  });

  it('grep and find over the whole workspace skip it; list marks it', async () => {
    expect((await call('grep', { pattern: 'launch|sandbox' })).content).not.toContain(SECRET);
    const found = (await call('find', { pattern: '**/*.json' })).content;
    expect(found).toContain('.config/other.json');
    expect(found).not.toContain('AgentDesk');
    expect((await call('list', { path: '.config' })).content).toBe("AgentDesk/  (AgentDesk's data folder: not accessible)\nother.json  (3 B)");
    expect(await readFile(path.join(ws, '.config', 'AgentDesk', 'config.json'), 'utf8')).toBe('{"agent":{"sandbox":true}}\n');
  });

  it('the rest of the workspace works as before; once unhidden the folder is an ordinary one', async () => {
    expect((await call('read', { path: 'notes.txt' })).content).toBe('hello');
    expect((await call('read', { path: '.config/other.json' })).content).toBe('{}');
    const again = hideFromTools([path.join(ws, '.config', 'AgentDesk')]); // a second gateway on the same folder
    unhide();
    await expect(call('read', { path: 'alias/config.json' })).rejects.toThrow(/data folder/);
    again();
    expect((await call('read', { path: 'alias/config.json' })).content).toBe('{"agent":{"sandbox":true}}');
    unhide = hideFromTools([path.join(ws, '.config', 'AgentDesk')]);
  });
});
