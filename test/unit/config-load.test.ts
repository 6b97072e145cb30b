import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../main/engine/config/load.js';
import { defaultConfig } from '../../main/engine/config/schema.js';

const DEFAULTS = {
  providers: {},
  authProfiles: [],
  agent: {
    model: { fallbacks: [] },
    timeoutSeconds: 600,
    maxConcurrent: 4,
    thinking: 'off',
    queueMode: 'followup',
    sandbox: true,
    verbose: false,
    network: true,
    approvals: { mode: 'ask', tools: {}, allowTools: [], denyTools: [], allowCommands: [], denyCommands: [], timeoutSeconds: 300, allowUnsandboxed: false },
    limits: {},
  },
  plugins: { enabled: [] },
  checkpoints: { enabled: true, keep: 100, maxAgeDays: 30, maxFileMB: 10, maxTotalMB: 1024, maxEntries: 200_000 },
  mcpServers: {},
};

const messageOf = (text: string): string => {
  try {
    parseConfig(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).name).toBe('ConfigError');
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};
const json = (v: unknown) => JSON.stringify(v, null, 2);

describe('good configs', () => {
  it('defaults', () => {
    expect(defaultConfig()).toEqual(DEFAULTS);
    expect(parseConfig('{}')).toEqual(DEFAULTS);
    expect(parseConfig('  \n')).toEqual(DEFAULTS); // a blank file is the same as none
    expect(parseConfig('\uFEFF{}')).toEqual(DEFAULTS); // BOM from Windows editors
  });

  it('the full example of the spec, with defaults filled in', () => {
    const cfg = parseConfig(
      json({
        providers: {
          local: {
            api: 'openai-chat',
            baseUrl: 'http://127.0.0.1:11434/v1',
            apiKeyEnv: 'LOCAL_KEY',
            timeoutSeconds: 90,
            models: [{ id: 'qwen3:8b', contextWindow: 32768, maxTokens: 4096, reasoning: true }, { id: 'llama' }],
          },
          anthropic: { baseUrl: 'https://proxy.example.com' }, // built-in name: api/baseUrl optional
        },
        authProfiles: [
          { id: 'local:default', provider: 'local', apiKeyEnv: 'LOCAL_KEY' },
          { id: 'anthropic:work', provider: 'anthropic' },
          { id: 'openai:personal', provider: 'openai', apiKeyEnv: 'OPENAI_KEY_2' },
        ],
        agent: {
          model: { primary: 'local/qwen3:8b', fallbacks: ['anthropic/claude-sonnet-4-5', 'demo/agent'] },
          timeoutSeconds: 120,
          contextTokens: 100000,
          maxConcurrent: 2,
          thinking: 'high',
          queueMode: 'collect',
          sandbox: false,
          workspace: '/tmp/ws',
        },
      }),
    );
    expect(cfg.providers.local?.models).toEqual([
      { id: 'qwen3:8b', contextWindow: 32768, maxTokens: 4096, reasoning: true },
      { id: 'llama' },
    ]);
    expect(cfg.providers.anthropic).toEqual({ baseUrl: 'https://proxy.example.com', models: [] });
    expect(cfg.agent).toEqual({
      model: { primary: 'local/qwen3:8b', fallbacks: ['anthropic/claude-sonnet-4-5', 'demo/agent'] },
      timeoutSeconds: 120,
      contextTokens: 100000,
      maxConcurrent: 2,
      thinking: 'high',
      queueMode: 'collect',
      sandbox: false,
      verbose: false,
      network: true,
      approvals: { mode: 'ask', tools: {}, allowTools: [], denyTools: [], allowCommands: [], denyCommands: [], timeoutSeconds: 300, allowUnsandboxed: false },
      limits: {},
      workspace: '/tmp/ws',
    });
  });

  it('model ids may contain "/" (split at the first one)', () => {
    const cfg = parseConfig(
      json({
        providers: { router: { api: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1', models: [{ id: 'meta/llama-3' }] } },
        agent: { model: { primary: 'router/meta/llama-3' } },
      }),
    );
    expect(cfg.agent.model.primary).toBe('router/meta/llama-3');
  });
});

describe('bad configs → one exact line', () => {
  it.each([
    // JSON syntax, with line and column
    ['trailing comma', '{\n  "agent": {\n    "sandbox": true,\n  }\n}', `config.json is not valid JSON: Unexpected token '}' (line 4, column 3)`],
    ['missing value', '{\n  "agent": {\n    "maxConcurrent": }\n}', `config.json is not valid JSON: Unexpected token '}' (line 3, column 22)`],
    ['unquoted key', '{ agent: {} }', `config.json is not valid JSON: Unexpected token 'a' (line 1, column 3)`],
    ['comment', '{\n  // my config\n}', `config.json is not valid JSON: Unexpected token '/' (line 2, column 3)`],
    ['truncated', '{"agent": {"thinking": "hi', 'config.json is not valid JSON: Unterminated string (line 1, column 24)'],
    ['cut after a key', '{"agent": {', 'config.json is not valid JSON: Unexpected end of input (line 1, column 12)'],
    ['two values', '{} {}', `config.json is not valid JSON: Unexpected '{' after the end of the JSON value (line 1, column 4)`],
    ['single quotes', "{'agent': 1}", `config.json is not valid JSON: Unexpected token ''' (line 1, column 2)`],
    ['bad literal', '{"agent": {"sandbox": tru}}', `config.json is not valid JSON: Unexpected token '}' (line 1, column 26)`],
    // types
    ['top level not an object', '[]', 'config.json: expected an object, got an array'],
    ['string for a number', json({ agent: { maxConcurrent: 'four' } }), 'config.json: agent.maxConcurrent: expected a number, got "four"'],
    ['fraction for a count', json({ agent: { maxConcurrent: 1.5 } }), 'config.json: agent.maxConcurrent: expected a whole number, got 1.5'],
    ['zero concurrency', json({ agent: { maxConcurrent: 0 } }), 'config.json: agent.maxConcurrent: expected a number greater than 0, got 0'],
    ['negative timeout', json({ agent: { timeoutSeconds: -5 } }), 'config.json: agent.timeoutSeconds: expected a number greater than 0, got -5'],
    ['string for a boolean', json({ agent: { sandbox: 'yes' } }), 'config.json: agent.sandbox: expected true or false, got "yes"'],
    ['bad thinking level', json({ agent: { thinking: 'max' } }), 'config.json: agent.thinking: expected one of "off", "minimal", "low", "medium", "high", got "max"'],
    ['bad queue mode', json({ agent: { queueMode: 'queue' } }), 'config.json: agent.queueMode: expected one of "followup", "collect", "steer", "interrupt", got "queue"'],
    ['null section', json({ agent: null }), 'config.json: agent: expected an object, got null'],
    ['fallbacks not a list', json({ agent: { model: { fallbacks: 'openai/gpt-4o' } } }), 'config.json: agent.model.fallbacks: expected an array, got "openai/gpt-4o"'],
    ['bad api', json({ providers: { local: { api: 'ollama', baseUrl: 'http://x' } } }), 'config.json: providers.local.api: expected one of "anthropic", "openai-chat", "openai-responses", got "ollama"'],
    ['bad url', json({ providers: { local: { api: 'openai-chat', baseUrl: 'localhost:11434' } } }), 'config.json: providers.local.baseUrl: expected an http:// or https:// URL, got "localhost:11434"'],
    ['model without id', json({ providers: { local: { api: 'openai-chat', baseUrl: 'http://x', models: [{ contextWindow: 1000 }] } } }), 'config.json: providers.local.models[0].id: missing (expected a string)'],
    ['empty profile id', json({ authProfiles: [{ id: '', provider: 'openai' }] }), 'config.json: authProfiles[0].id: expected a non-empty string, got ""'],
    ['odd provider key in a path', json({ providers: { 'my host': { api: 'x' } } }), 'config.json: providers["my host"].api: expected one of "anthropic", "openai-chat", "openai-responses", got "x"'],
    // unknown keys (strict), reported before the issues they cause
    ['typo at the top', json({ provider: {} }), 'config.json: unknown key "provider" (did you mean "providers"?)'],
    ['typo in agent', json({ agent: { maxConcurency: 2 } }), 'config.json: agent: unknown key "maxConcurency" (did you mean "maxConcurrent"?)'],
    ['typo beats the missing key it causes', json({ providers: { local: { aip: 'openai-chat', baseUrl: 'http://x', models: [{ idd: 'm' }] } } }), 'config.json: providers.local: unknown key "aip" (did you mean "api"?)'],
    ['unknown key without a near match', json({ agent: { colour: 'blue' } }), 'config.json: agent: unknown key "colour" (allowed: model, timeoutSeconds, contextTokens, historyTurns, maxConcurrent, thinking, queueMode, sandbox, verbose, network, approvals, limits, workspace, budget)'],
    ['unknown key in a list item', json({ authProfiles: [{ id: 'openai:a', provider: 'openai', key: 'sk-123' }] }), 'config.json: authProfiles[0]: unknown key "key" (allowed: id, provider, apiKeyEnv, locked, preferred)'],
    // cross-field rules
    ['profile of an unknown provider', json({ authProfiles: [{ id: 'nope:a', provider: 'nope' }] }), 'config.json: authProfiles[0].provider "nope" is not a configured provider'],
    ['profile of the demo provider', json({ authProfiles: [{ id: 'demo:a', provider: 'demo' }] }), 'config.json: authProfiles[0].provider "demo" is not a configured provider'],
    ['profile id without the provider prefix', json({ authProfiles: [{ id: 'work', provider: 'anthropic' }] }), 'config.json: authProfiles[0].id: expected "anthropic:LABEL", got "work"'],
    ['profile id with an empty label', json({ authProfiles: [{ id: 'anthropic:', provider: 'anthropic' }] }), 'config.json: authProfiles[0].id: expected "anthropic:LABEL", got "anthropic:"'],
    [
      'two locked profiles of one provider',
      json({ authProfiles: [{ id: 'openai:a', provider: 'openai', locked: true }, { id: 'openai:b', provider: 'openai', locked: true }] }),
      'config.json: authProfiles[1].locked: "openai:a" is already the locked profile of openai',
    ],
    ['duplicate profile ids', json({ authProfiles: [{ id: 'openai:a', provider: 'openai' }, { id: 'openai:a', provider: 'openai', apiKeyEnv: 'K' }] }), 'config.json: authProfiles[1].id: duplicate profile "openai:a"'],
    ['custom provider without api', json({ providers: { local: { baseUrl: 'http://127.0.0.1:1234/v1' } } }), 'config.json: providers.local.api: missing (expected one of "anthropic", "openai-chat", "openai-responses")'],
    ['custom provider without baseUrl', json({ providers: { local: { api: 'openai-chat' } } }), 'config.json: providers.local.baseUrl: missing (expected an http:// or https:// URL)'],
    ['provider name with a slash', json({ providers: { 'a/b': { api: 'openai-chat', baseUrl: 'http://x' } } }), 'config.json: providers["a/b"]: provider names may use only letters, digits, ".", "_" and "-"'],
    ['configuring demo', json({ providers: { demo: { api: 'openai-chat', baseUrl: 'http://x' } } }), 'config.json: providers.demo: "demo" is the built-in offline model and cannot be configured'],
    ['duplicate model id', json({ providers: { local: { api: 'openai-chat', baseUrl: 'http://x', models: [{ id: 'm' }, { id: 'm' }] } } }), 'config.json: providers.local.models[1].id: duplicate model "m"'],
    ['primary without provider', json({ agent: { model: { primary: 'gpt-4o' } } }), 'config.json: agent.model.primary: expected "provider/model", got "gpt-4o"'],
    ['primary with an empty model', json({ agent: { model: { primary: 'openai/' } } }), 'config.json: agent.model.primary: expected "provider/model", got "openai/"'],
    ['fallback of an unknown provider', json({ agent: { model: { fallbacks: ['openai/gpt-4o', 'opena/gpt-4o'] } } }), 'config.json: agent.model.fallbacks[1]: unknown provider "opena" in "opena/gpt-4o" (known: anthropic, openai, demo)'],
  ])('%s', (_name, text, expected) => {
    expect(messageOf(text)).toBe(expected);
  });

  it('every message is a single line, even for a long input', () => {
    const msg = messageOf(json({ agent: { thinking: 'x'.repeat(500) + '\n' } }));
    expect(msg).not.toContain('\n');
    expect(msg.length).toBeLessThan(200);
  });
});

describe('loadConfig(home)', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agentdesk-config-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('a missing file means the defaults', async () => {
    expect(await loadConfig(join(home, 'empty-home'))).toEqual(DEFAULTS);
  });

  it('reads <home>/config.json', async () => {
    const dir = join(home, 'a');
    await mkdir(dir);
    await writeFile(join(dir, 'config.json'), json({ agent: { maxConcurrent: 7 } }));
    expect((await loadConfig(dir)).agent.maxConcurrent).toBe(7);
  });

  it('a bad file rejects with a ConfigError that carries the full path', async () => {
    const dir = join(home, 'b');
    await mkdir(dir);
    await writeFile(join(dir, 'config.json'), json({ agent: { maxConcurrent: 'four' } }));
    const err = await loadConfig(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe('config.json: agent.maxConcurrent: expected a number, got "four"');
    expect((err as ConfigError).file).toBe(join(dir, 'config.json'));
  });

  it('an unreadable file (a folder) is a ConfigError, not a crash', async () => {
    const dir = join(home, 'c');
    await mkdir(join(dir, 'config.json'), { recursive: true });
    await expect(loadConfig(dir)).rejects.toThrow(/^config\.json could not be read: EISDIR/);
  });
});
