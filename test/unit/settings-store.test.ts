/** D5: settings.json through conf (the library electron-store is built on): schema, migrations, errors, precedence. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, configSchema } from '../../main/engine/config/schema.js';
import { applySettings } from '../../main/settings/effective.js';
import { SETTINGS_VERSION } from '../../main/settings/migrations.js';
import { settingsSchema } from '../../main/settings/schema.js';
import { openSettings, readCurrentSettings, SETTINGS_FILE, SettingsError } from '../../main/settings/store.js';

const home = () => mkdtempSync(join(tmpdir(), 'agentdesk-settings-'));
const readFile = (dir: string) => JSON.parse(readFileSync(join(dir, SETTINGS_FILE), 'utf8')) as Record<string, unknown>;

describe('settings.json', () => {
  it('a new file has the defaults and records its version; updates survive a reopen', () => {
    const dir = home();
    const s = openSettings(dir);
    expect(s.get()).toEqual(settingsSchema.parse({}));
    s.update((x) => ({ ...x, defaults: { ...x.defaults, model: 'demo/agent', sandbox: false }, onboarded: true }));
    const again = openSettings(dir).get();
    expect(again.defaults).toEqual({ model: 'demo/agent', sandbox: false });
    expect(again.onboarded).toBe(true);
    expect(readFile(dir).__internal__).toEqual({ migrations: { version: SETTINGS_VERSION } });
  });

  it('unsetting a value removes it from the file', () => {
    const dir = home();
    const s = openSettings(dir);
    s.update((x) => ({ ...x, workspace: '/tmp' }));
    s.update((x) => ({ ...x, workspace: undefined }));
    expect('workspace' in readFile(dir)).toBe(false);
  });

  it('migrates a 1.0.0 file (flat defaultModel/defaultThinking/lastWorkspace)', () => {
    const dir = home();
    writeFileSync(
      join(dir, SETTINGS_FILE),
      JSON.stringify({ __internal__: { migrations: { version: '1.0.0' } }, defaultModel: 'openai/gpt-4o', defaultThinking: 'low', lastWorkspace: '/srv/project' }),
    );
    const s = openSettings(dir).get();
    expect(s.defaults).toEqual({ model: 'openai/gpt-4o', thinking: 'low' });
    expect(s.workspace).toBe('/srv/project');
    expect(s.recentWorkspaces).toEqual(['/srv/project']);
    const raw = readFile(dir);
    expect(raw).not.toHaveProperty('defaultModel');
    expect(raw).not.toHaveProperty('lastWorkspace');
    expect(raw.__internal__).toEqual({ migrations: { version: SETTINGS_VERSION } });
  });

  it("imports the shell's older window-state.json folder", () => {
    const dir = home();
    writeFileSync(join(dir, 'window-state.json'), JSON.stringify({ workspace: '/home/me/code' }));
    expect(openSettings(dir).get()).toMatchObject({ workspace: '/home/me/code', recentWorkspaces: ['/home/me/code'] });
  });

  it.each([
    ['{"defaults": ', /^settings\.json is not valid JSON \(.+\); fix it or delete it to start over$/],
    ['{"defaults": {"thinking": "huge"}}', /^settings\.json: defaults\.thinking must be equal to one of the allowed values$/],
    ['{"recentWorkspaces": "not a list"}', /^settings\.json: recentWorkspaces must be array$/],
  ])('a broken file %j is one line naming the problem, and is not wiped', (text, pattern) => {
    const dir = home();
    writeFileSync(join(dir, SETTINGS_FILE), text);
    const err = (() => {
      try {
        openSettings(dir).get();
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as Error).message).toMatch(pattern);
    // never wiped (a migration may have reformatted it and recorded its version)
    const after = readFileSync(join(dir, SETTINGS_FILE), 'utf8');
    if (text.endsWith(' ')) expect(after).toBe(text);
    else expect(JSON.parse(after)).toMatchObject(JSON.parse(text));
  });
});

describe('applySettings: flags › settings › config.json › defaults', () => {
  const base = configSchema.parse({
    providers: { local: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:1234/v1', models: [{ id: 'm' }] } },
    authProfiles: [{ id: 'anthropic:ci', provider: 'anthropic', apiKeyEnv: 'CI_KEY' }, { id: 'anthropic:work', provider: 'anthropic' }],
    agent: { model: { primary: 'local/m' }, thinking: 'high', timeoutSeconds: 100 },
  });
  const s = (x: object) => settingsSchema.parse(x);

  it.each([
    ['nothing chosen keeps config.json', {}, { primary: 'local/m', thinking: 'high', timeoutSeconds: 100, sandbox: true }],
    ['defaults win over config.json', { defaults: { model: 'demo/agent', thinking: 'off', timeoutSeconds: 30, sandbox: false, approval: 'deny' } }, { primary: 'demo/agent', thinking: 'off', timeoutSeconds: 30, sandbox: false, approval: 'deny' }],
  ])('%s', (_n, settings, expected) => {
    const c = applySettings(base, s(settings));
    expect({ primary: c.agent.model.primary, thinking: c.agent.thinking, timeoutSeconds: c.agent.timeoutSeconds, sandbox: c.agent.sandbox, approval: c.agent.approvals.mode }).toEqual(
      { approval: 'ask', ...expected },
    );
  });

  it('the approval default keeps the per-tool lists of config.json', () => {
    const withLists = configSchema.parse({ agent: { approvals: { mode: 'ask', allowTools: ['write'], denyCommands: ['rm'] } } });
    const c = applySettings(withLists, s({ defaults: { approval: 'auto' } }));
    expect(c.agent.approvals).toMatchObject({ mode: 'auto', allowTools: ['write'], denyCommands: ['rm'] });
  });

  it('Settings profiles come first in their order, then the config.json ones not listed', () => {
    const c = applySettings(
      base,
      s({ profiles: [{ id: 'anthropic:work', provider: 'anthropic', label: 'work', addedAt: 1 }, { id: 'anthropic:home', provider: 'anthropic', label: 'home', addedAt: 2 }] }),
    );
    expect(c.authProfiles.map((p) => p.id)).toEqual(['anthropic:work', 'anthropic:home', 'anthropic:ci']);
  });

  it('endpoints join the providers; config.json wins a name clash', () => {
    const c = applySettings(
      base,
      s({ providers: { local: { api: 'anthropic', baseUrl: 'http://x.invalid' }, ollama: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'llama3' }] } } }),
    );
    expect(c.providers.local!.api).toBe('openai-chat');
    expect(c.providers.ollama).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'llama3' }] });
  });

  it('a default model of an unknown provider is refused in one line', () => {
    expect(() => applySettings(defaultConfig(), s({ defaults: { model: 'gone/x' } }))).toThrow(/unknown provider "gone"/);
  });
});

describe('reading a current settings.json without conf', () => {
  const current = (body: object) => JSON.stringify({ ...body, __internal__: { migrations: { version: SETTINGS_VERSION } } });
  it.each([
    ['a current, valid file', current({ defaults: { model: 'demo/agent' }, onboarded: true }), { defaults: { model: 'demo/agent' }, onboarded: true }],
    ['no file', undefined, undefined],
    ['not JSON', '{"defaults": ', undefined],
    ['JSON but not an object', '[1, 2]', undefined],
    ['no version recorded', JSON.stringify({ defaults: {} }), undefined],
    ['an older version', JSON.stringify({ __internal__: { migrations: { version: '1.0.0' } }, defaultModel: 'x/y' }), undefined],
    ['a schema violation', current({ defaults: { thinking: 'huge' } }), undefined],
  ])('%s', (_name, text, expected) => {
    const dir = home();
    if (text !== undefined) writeFileSync(join(dir, SETTINGS_FILE), text);
    const got = readCurrentSettings(join(dir, SETTINGS_FILE));
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toEqual(settingsSchema.parse(expected));
  });

  it('a store opened on a current file sees other writers, writes through conf, and names a later breakage', () => {
    const dir = home();
    openSettings(dir).update((x) => ({ ...x, onboarded: true })); // creates the file through conf
    const reader = openSettings(dir);
    expect(reader.get().onboarded).toBe(true);
    openSettings(dir).update((x) => ({ ...x, workspace: '/srv/a' })); // another writer
    expect(reader.get().workspace).toBe('/srv/a');
    reader.update((x) => ({ ...x, workspace: '/srv/b', recentWorkspaces: ['/srv/b'] }));
    expect(readFile(dir)).toMatchObject({ workspace: '/srv/b', onboarded: true, __internal__: { migrations: { version: SETTINGS_VERSION } } });
    writeFileSync(join(dir, SETTINGS_FILE), current({ defaults: { thinking: 'huge' } }));
    expect(() => openSettings(dir).get()).toThrow(/^settings\.json: defaults\.thinking must be equal to one of the allowed values$/);
  });
});
