import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { HookRunner } from '../../main/engine/attempt/hook-runner.js';
import { loadPlugins, pluginEntry } from '../../main/engine/plugins.js';
import { parseConfig } from '../../main/engine/config/load.js';

let home: string;
beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-plugins-')));
});

async function plugin(name: string, files: Record<string, string>) {
  const dir = join(home, 'plugins', name);
  await mkdir(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
  return dir;
}

describe('plugins (E19)', () => {
  it('loads enabled plugins only; a disabled plugin never runs', async () => {
    await plugin('obj', { 'index.mjs': `export default { hooks: { agent_end() {}, message_sending(e) { return { content: e.content + ' [obj]' }; } } };` });
    await plugin('fn', { 'package.json': '{"main":"main.mjs"}', 'main.mjs': `export default (api) => { api.on('before_tool_call', () => ({ block: true, reason: 'no' })); };` });
    await plugin('off', { 'index.mjs': `throw new Error('a disabled plugin must not be imported');` });
    const runner = new HookRunner();
    const infos = await loadPlugins({ home, enabled: ['obj', 'fn'], runner, log: () => undefined });
    expect(infos.map((p) => [p.name, p.enabled, p.hooks.sort(), p.error ?? null])).toEqual([
      ['fn', true, ['before_tool_call'], null],
      ['obj', true, ['agent_end', 'message_sending'], null],
      ['off', false, [], null],
    ]);
    expect(await runner.messageSending({ content: 'hi', isError: false }, {})).toEqual({ content: 'hi [obj]', cancel: false });
    expect((await runner.beforeToolCall({ runId: 'r', sessionKey: 's', toolCallId: 't', toolName: 'x', params: {} })).block).toBe(true);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['throws on import', { 'index.mjs': `throw new Error('boom at load');` }, /boom at load/],
    ['no entry', { 'README.md': 'hi' }, /no entry module/],
    ['no hooks export', { 'index.mjs': `export const x = 1;` }, /no default export with hooks/],
    ['unknown hook (the known ones still load)', { 'index.mjs': `export default { hooks: { not_a_hook() {}, agent_end() {} } };` }, /unknown hook "not_a_hook"/],
  ])('a plugin that %s is reported in one line', async (_name, files, error) => {
    await plugin('bad', files);
    const infos = await loadPlugins({ home, enabled: ['bad'], runner: new HookRunner(), log: () => undefined });
    expect(infos[0]!.error).toMatch(error);
    expect(infos[0]!.error).not.toContain('\n');
  });

  it('an enabled name without a folder is reported', async () => {
    const infos = await loadPlugins({ home, enabled: ['ghost'], runner: new HookRunner(), log: () => undefined });
    expect(infos).toEqual([expect.objectContaining({ name: 'ghost', enabled: true, error: expect.stringMatching(/no folder ghost/) })]);
  });

  it('an entry that points outside the plugin folder is refused', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-plugin-out-')));
    await writeFile(join(outside, 'evil.mjs'), 'export default { hooks: {} };');
    const dir = await plugin('esc', {});
    await symlink(join(outside, 'evil.mjs'), join(dir, 'index.mjs'));
    await expect(pluginEntry(dir)).rejects.toThrow(/outside the plugin folder/);
  });
});

describe('config: plugins.enabled', () => {
  it.each<[string, string[] | RegExp]>([
    ['{}', []],
    ['{"plugins":{"enabled":["audit","x"]}}', ['audit', 'x']],
    ['{"plugins":{"enabled":[""]}}', /plugins\.enabled/],
    ['{"plugins":{"enable":["audit"]}}', /enable/],
  ])('%s', (text, expected) => {
    if (Array.isArray(expected)) expect(parseConfig(text).plugins.enabled).toEqual(expected);
    else expect(() => parseConfig(text)).toThrow(expected);
  });
});
