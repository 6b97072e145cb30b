/**
 * X3 gateway methods in process: `@`-mentions (a file's text, a folder's listing, confined to the workspace — a
 * path outside or into the data folder is refused), `workspace.complete` honouring .gitignore, history carrying the
 * attachments, an export carrying their bytes, and bad uploads refused with one line.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useGatewayHarness } from '../support/gateway.js';
import { flatImage } from '../support/images.js';

const h = useGatewayHarness();
const config = () => ({
  providers: { ant: { api: 'anthropic', baseUrl: h.fakes.anthropic.baseUrl, models: [{ id: 'claude-fake', contextWindow: 200000, maxTokens: 4096, input: ['text', 'image'] }] } },
  authProfiles: [{ id: 'ant:test', provider: 'ant', apiKeyEnv: 'K' }],
  agent: { model: { primary: 'ant/claude-fake' } },
});
const env = { K: 'sk-ant-gw-attach' };

describe('attachments through the gateway', () => {
  it('@-mentions a file and a folder, completes paths with .gitignore honoured, and refuses paths outside', async () => {
    const { gw, workspace, home } = await h.open({ prefix: 'gw-att', configJson: config(), env, files: { 'notes.md': '# Notes\nhello\n', '.gitignore': 'build/\n' } });
    await mkdir(join(workspace, 'src'));
    await writeFile(join(workspace, 'src', 'app.ts'), 'export {};\n');
    await mkdir(join(workspace, 'build'));
    await writeFile(join(workspace, 'build', 'app.js'), 'x');
    await symlink(join(home, 'config.json'), join(workspace, 'cfg.json'));

    const file = await gw.request('attachments.mention', { path: 'notes.md' });
    expect(file).toMatchObject({ type: 'file', name: 'notes.md', mention: 'file', mimeType: 'text/markdown', bytes: 14 });
    const folder = await gw.request('attachments.mention', { path: 'src' });
    expect(folder).toMatchObject({ type: 'file', name: 'src/', mention: 'folder' });
    await expect(gw.request('attachments.mention', { path: '../etc/passwd' })).rejects.toThrow(/outside the workspace/);
    await expect(gw.request('attachments.mention', { path: 'cfg.json' })).rejects.toThrow(/outside the workspace/);

    const all = (await gw.request('workspace.complete', { query: 'app' })).map((c) => c.path);
    expect(all).toContain('src/app.ts');
    expect(all).not.toContain('build/app.js');
    expect((await gw.request('workspace.complete', { query: 'sr' }))[0]).toEqual({ path: 'src/', kind: 'dir' });

    h.fakes.anthropic.enqueue({ text: 'Got them.' });
    const png = await flatImage(20, 10);
    const image = await gw.request('attachments.add', { name: 'shot.png', data: png.toString('base64') });
    const { runId } = await gw.request('agent', {
      message: 'See @notes.md and @src',
      sessionKey: 'm',
      attachments: [image, file, folder].map((a) => ({ id: a.id, name: a.name, ...(a.mention ? { mention: a.mention } : {}) })),
    });
    expect((await gw.request('agent.wait', { runId })).status).toBe('ok');
    const sent = h.fakes.anthropic.requests.at(-1)!.body.messages.at(-1).content;
    expect(sent[0].type).toBe('image');
    expect(sent[1].text).toMatch(/^<attached_file name="notes\.md" type="text\/markdown">\n# Notes\nhello\n\n<\/attached_file>\n\n<folder_listing name="src\/" type="text\/plain">\napp\.ts {2}\(\d+ B\)\n<\/folder_listing>\n\nSee @notes\.md and @src$/);

    const history = await gw.request('sessions.history', { sessionKey: 'm' });
    expect(history[0]).toMatchObject({ role: 'user', attachments: [{ id: image.id, type: 'image', width: 20, height: 10 }, { id: file.id, mention: 'file' }, { id: folder.id, mention: 'folder' }] });
    expect(await gw.request('attachments.get', { id: image.id })).toEqual({ mimeType: 'image/png', data: png.toString('base64') });

    const json = JSON.parse((await gw.request('sessions.export', { sessionKey: 'm', format: 'json' })).content);
    expect(json.attachments[image.id]).toEqual({ mimeType: 'image/png', data: png.toString('base64') });
    const md = (await gw.request('sessions.export', { sessionKey: 'm', format: 'markdown' })).content;
    expect(md).toContain(`![shot.png](data:image/png;base64,${png.toString('base64')})`);
    expect(md).toContain('**File** `notes.md`');
  });

  it('refuses an upload that is not an image or text, an unknown id, and a malformed one — one line each', async () => {
    const { gw } = await h.open({ prefix: 'gw-att2', configJson: config(), env });
    await expect(gw.request('attachments.add', { name: 'x.bin', data: Buffer.from([0, 1, 2]).toString('base64') })).rejects.toThrow('x.bin is neither an image (PNG, JPEG, GIF, WebP) nor a text file; it cannot be attached.');
    await expect(gw.request('agent', { message: 'hi', attachments: [{ id: 'f'.repeat(64) }] })).rejects.toThrow(/is missing from the data folder/);
    await expect(gw.request('agent', { message: 'hi', attachments: [{ id: '../x' }] })).rejects.toThrow(/not an attachment id/);
    expect(h.fakes.anthropic.requests).toHaveLength(0);
  });
});
