/**
 * Settings and key profiles through the gateway (D4, D5) with the real SDKs against the fake servers. The keychain
 * is an in-memory SecretStore here (it stands in for keytar; the real keychain is covered by keychain.test.ts and
 * the web e2e test under gnome-keyring).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeychainUnavailableError, REASON_NO_DBUS, type SecretStore } from '../../main/auth/secrets.js';
import { tempDir } from '../support/cli.js';
import { useGatewayHarness } from '../support/gateway.js';

const gateways = useGatewayHarness({ openai: true });
const { fakes } = gateways;
const KEY = 'sk-ant-settings-test-key-9876';

function memoryStore(): SecretStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: async (id) => map.get(id) ?? null,
    set: async (id, s) => void map.set(id, s),
    delete: async (id) => map.delete(id),
    list: async () => [...map.keys()].sort(),
  };
}

/** The key of the last request (the SDK sends it as x-api-key or a bearer token). */
const sentKey = (): string | undefined => {
  const h = fakes.anthropic.requests.at(-1)!.headers;
  return (h['x-api-key'] as string | undefined) ?? String(h.authorization ?? '').replace(/^Bearer\s+/i, '');
};

async function open(secrets: () => Promise<SecretStore> = async () => memoryStore()) {
  const store = await secrets().catch(() => undefined);
  const { gw, home, workspace } = await gateways.open({
    prefix: 'gset',
    env: {},
    openSecrets: store ? async () => store : secrets,
    configJson: { providers: { fake: { api: 'anthropic', baseUrl: fakes.anthropic.baseUrl, timeoutSeconds: 5, models: [{ id: 'm1' }, { id: 'm2' }] } } },
  });
  return { gw, home, workspace, store: store as ReturnType<typeof memoryStore> | undefined };
}

describe('key profiles', () => {
  it('add: the key goes to the keychain and only its mask ever comes back; the loop uses it', async () => {
    const { gw, home, store } = await open();
    const added = await gw.request('auth.add', { provider: 'fake', label: 'work', key: `  ${KEY}\n` });
    expect(added).toMatchObject({ id: 'fake:work', provider: 'fake', label: 'work', storage: 'keychain', masked: 'sk-ant…9876' });
    expect(store!.map.get('fake:work')).toBe(KEY);
    const responses = [added, await gw.request('auth.profiles', {}), await gw.request('auth.status', {}), await gw.request('settings.get', {})];
    for (const r of responses) expect(JSON.stringify(r)).not.toContain(KEY);
    expect(await readFile(join(home, 'settings.json'), 'utf8')).not.toContain(KEY);
    expect((await gw.request('models.list', {})).find((m) => m.ref === 'fake/m1')?.hasKey).toBe(true);
    const { runId } = await gw.request('agent', { message: 'hi', sessionKey: 's', model: 'fake/m1' });
    expect((await gw.request('agent.wait', { runId })).status).toBe('ok');
    expect(sentKey()).toBe(KEY);
    await expect(gw.request('auth.add', { provider: 'fake', label: 'work', key: KEY })).rejects.toThrow(/exists already/);
  });

  it('reorder sets the order the outer loop tries them in; remove deletes the key', async () => {
    const { gw, store } = await open();
    await gw.request('auth.add', { provider: 'fake', label: 'a', key: 'sk-ant-first-key-00000001' });
    await gw.request('auth.add', { provider: 'fake', label: 'b', key: 'sk-ant-second-key-0000002' });
    expect(gw.config.authProfiles.map((p) => p.id)).toEqual(['fake:a', 'fake:b']);
    const reordered = await gw.request('auth.reorder', { provider: 'fake', ids: ['fake:b', 'fake:a'] });
    expect(reordered.map((p) => p.id)).toEqual(['fake:b', 'fake:a']);
    expect(gw.config.authProfiles.map((p) => p.id)).toEqual(['fake:b', 'fake:a']);
    const { runId } = await gw.request('agent', { message: 'hi', sessionKey: 's', model: 'fake/m1' });
    await gw.request('agent.wait', { runId });
    expect(sentKey()).toBe('sk-ant-second-key-0000002');
    await expect(gw.request('auth.reorder', { provider: 'fake', ids: ['fake:b'] })).rejects.toThrow(/exactly once/);
    expect(await gw.request('auth.remove', { id: 'fake:b' })).toEqual({ removed: true, undoUntil: expect.any(Number) });
    expect(store!.map.has('fake:b')).toBe(false);
    expect((await gw.request('auth.profiles', {})).map((p) => p.id)).toEqual(['fake:a']);
    // issue 18 item 13: put back within the undo window, at its place in the order, with its key
    const back = await gw.request('auth.restore', { id: 'fake:b' });
    expect(back).toMatchObject({ id: 'fake:b', masked: 'sk-ant…0002' });
    expect(store!.map.get('fake:b')).toBe('sk-ant-second-key-0000002');
    expect(gw.config.authProfiles.map((p) => p.id)).toEqual(['fake:b', 'fake:a']);
    await expect(gw.request('auth.restore', { id: 'fake:b' })).rejects.toThrow(/can no longer be put back/);
  });

  it('test key: a minimal real request, classified', async () => {
    const { gw } = await open();
    await gw.request('auth.add', { provider: 'fake', label: 'k', key: KEY });
    const ok = await gw.request('auth.test', { id: 'fake:k' });
    expect(ok).toMatchObject({ ok: true, model: 'fake/m1' });
    expect(fakes.anthropic.requests.at(-1)!.body.max_tokens).toBe(1);
    // X4: the test is a model call: billed in the ledger under its key, in no chat.
    const usage = await gw.request('usage.summary', {});
    expect(usage.total.calls).toBe(1);
    expect(usage.total.input).toBeGreaterThan(0);
    expect(usage.byKey).toEqual([expect.objectContaining({ profileId: 'fake:k', calls: 1 })]);
    expect(usage.byModel).toEqual([expect.objectContaining({ model: 'fake/m1', calls: 1 })]);
    expect(usage.byChat).toEqual([]);
    fakes.anthropic.enqueue({ fault: { kind: 'auth' } });
    const bad = await gw.request('auth.test', { id: 'fake:k' });
    expect(bad).toMatchObject({ ok: false, reason: 'auth' });
    expect(JSON.stringify(bad)).not.toContain(KEY);
  });

  it.each([
    [{ provider: 'nope', label: 'x', key: KEY }, /unknown provider "nope"/],
    [{ provider: 'fake', label: 'bad label', key: KEY }, /label/],
    [{ provider: 'fake', label: 'x', key: 'short' }, /too short/],
    [{ provider: 'fake', label: 'x', key: 'has a space in it' }, /spaces/],
    [{ provider: 'demo', label: 'x', key: KEY }, /unknown provider/],
  ])('auth.add %j is refused', async (params, pattern) => {
    const { gw } = await open();
    await expect(gw.request('auth.add', params)).rejects.toThrow(pattern);
  });

  it('no keychain: settings says why and how to fix it; auth.add refuses and writes nothing in clear text', async () => {
    const { gw, home } = await open(async () => {
      throw new KeychainUnavailableError(REASON_NO_DBUS);
    });
    const view = await gw.request('settings.get', {});
    expect(view.keychain).toMatchObject({ available: false, reason: expect.stringContaining('No OS keychain is available') });
    expect(view.keychain.fix).toMatch(/D-Bus|desktop session/);
    expect(view.encryptedFallback).toEqual({ supported: false, allowed: false });
    await expect(gw.request('auth.add', { provider: 'fake', label: 'x', key: KEY })).rejects.toThrow(/No OS keychain is available/);
    await expect(gw.request('auth.add', { provider: 'fake', label: 'x', key: KEY, storage: 'encrypted' })).rejects.toThrow(/only in the desktop app/);
    expect(await readFile(join(home, 'settings.json'), 'utf8')).not.toContain(KEY);
  });
});

describe('settings', () => {
  it('defaults apply to the next run; a change never aborts a running one', async () => {
    const { gw } = await open();
    await gw.request('auth.add', { provider: 'fake', label: 'k', key: KEY });
    fakes.anthropic.enqueue({ text: 'slow answer from m1', chunkSize: 2, delayMs: 20 });
    const slow = await gw.request('agent', { message: 'slow', sessionKey: 'a', model: 'fake/m1' });
    const other = await tempDir('gset-other');
    await gw.request('settings.update', { defaults: { model: 'fake/m2', thinking: 'low', timeoutSeconds: 90 } });
    await gw.request('settings.setWorkspace', { path: other });
    expect((await gw.request('agent.wait', { runId: slow.runId })).status).toBe('ok');
    expect((await gw.request('agent.result', { runId: slow.runId }))!.payloads[0]!.text).toBe('slow answer from m1');
    expect((await gw.request('app.info', {})).defaultModel).toBe('fake/m2');
    expect((await gw.request('app.info', {})).workspace).toBe(other);
    const next = await gw.request('agent', { message: 'next', sessionKey: 'b' });
    await gw.request('agent.wait', { runId: next.runId });
    expect(fakes.anthropic.requests.at(-1)!.body.model).toBe('m2');
    expect(gw.config.agent.timeoutSeconds).toBe(90);
  });

  it('the approval default and the sandbox switch apply to the next tool call of the same gateway', async () => {
    const { gw, workspace } = await open();
    await gw.request('auth.add', { provider: 'fake', label: 'k', key: KEY });
    await gw.request('settings.update', { defaults: { approval: 'deny' } });
    fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'denied.txt', content: 'x' } }] }, { text: 'ok, not written' });
    const denied = await gw.request('agent', { message: 'write it', sessionKey: 'appr', model: 'fake/m1' });
    expect((await gw.request('agent.wait', { runId: denied.runId })).status).toBe('ok');
    await expect(readFile(join(workspace, 'denied.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(JSON.stringify(fakes.anthropic.requests.at(-1)!.body)).toMatch(/refused|denied|deny/i);

    await gw.request('settings.update', { defaults: { approval: 'auto', sandbox: false } });
    expect(gw.config.agent.sandbox).toBe(false);
    fakes.anthropic.enqueue({ toolCalls: [{ name: 'write', arguments: { path: 'allowed.txt', content: 'y' } }] }, { text: 'written' });
    const allowed = await gw.request('agent', { message: 'write it', sessionKey: 'appr', model: 'fake/m1' });
    expect((await gw.request('agent.wait', { runId: allowed.runId })).status).toBe('ok');
    expect(await readFile(join(workspace, 'allowed.txt'), 'utf8')).toBe('y');
  });

  it('workspace: a validated path; recent folders, newest first', async () => {
    const { gw, workspace } = await open();
    const a = await tempDir('gset-a');
    await writeFile(join(a, 'file.txt'), 'x');
    await expect(gw.request('settings.setWorkspace', { path: 'relative/dir' })).rejects.toThrow(/not an absolute path/);
    await expect(gw.request('settings.setWorkspace', { path: join(a, 'missing') })).rejects.toThrow(/no such folder/);
    await expect(gw.request('settings.setWorkspace', { path: join(a, 'file.txt') })).rejects.toThrow(/is a file, not a folder/);
    await expect(gw.request('settings.setWorkspace', { dialog: true })).rejects.toThrow(/type the folder path/);
    await gw.request('settings.setWorkspace', { path: a });
    const b = join(a, 'sub');
    await mkdir(b);
    const view = await gw.request('settings.setWorkspace', { path: b });
    expect(view.recentWorkspaces).toEqual([b, a]);
    expect(view.workspace).toBe(b);
    expect(workspace).not.toBe(b);
  });

  it('endpoints: models listed from /v1/models, saved, offered; an invalid default is refused and undone', async () => {
    const { gw } = await open();
    expect(await gw.request('providers.fetchModels', { api: 'openai-chat', baseUrl: fakes.openai.baseUrl })).toEqual({ ids: ['gpt-fake'] });
    await gw.request('settings.update', { providers: { lmstudio: { api: 'openai-chat', baseUrl: fakes.openai.baseUrl, models: [{ id: 'gpt-fake' }] } } });
    expect((await gw.request('models.list', {})).map((m) => m.ref)).toContain('lmstudio/gpt-fake');
    const { runId } = await gw.request('agent', { message: 'hi', sessionKey: 'l', model: 'lmstudio/gpt-fake' });
    expect((await gw.request('agent.wait', { runId })).status).toBe('ok');
    await expect(gw.request('settings.update', { defaults: { model: 'nowhere/x' } })).rejects.toThrow(/unknown provider "nowhere"/);
    await expect(gw.request('settings.update', { defaults: { model: 'gpt-fake' } })).rejects.toThrow(
      /^settings.update: defaults.model: Invalid model "gpt-fake": expected "provider\/model"/,
    );
    expect((await gw.request('settings.get', {})).defaults.model).toBeUndefined();
    await gw.request('settings.update', { providers: { lmstudio: null } });
    expect((await gw.request('models.list', {})).map((m) => m.ref)).not.toContain('lmstudio/gpt-fake');
    await expect(gw.request('providers.fetchModels', { api: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1' })).rejects.toThrow(/Could not list the models/);
  });
});
