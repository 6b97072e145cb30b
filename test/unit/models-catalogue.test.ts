import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../main/engine/config/load.js';
import { defaultConfig } from '../../main/engine/config/schema.js';
import {
  checkContextWindow,
  CONTEXT_MIN,
  CONTEXT_WARN_BELOW,
  defaultModelRef,
  effectiveContextTokens,
  listModels,
  ModelNotFoundError,
  ModelRefError,
  parseModelRef,
  providerNames,
  resolveModel,
  tryParseModelRef,
} from '../../main/engine/models.js';

const configured = parseConfig(
  JSON.stringify({
    providers: {
      local: {
        api: 'openai-chat',
        baseUrl: 'http://127.0.0.1:11434/v1',
        models: [{ id: 'qwen3:8b', contextWindow: 32768, reasoning: true }, { id: 'meta/llama-3' }],
      },
      anthropic: {
        baseUrl: 'http://127.0.0.1:9999',
        models: [{ id: 'claude-haiku-4-5', maxTokens: 4096 }, { id: 'claude-3-7-sonnet' }],
      },
      openai: { api: 'openai-responses' },
    },
    agent: { contextTokens: 100_000 },
  }),
);

describe('parseModelRef', () => {
  it.each([
    ['openai/gpt-4o', { provider: 'openai', model: 'gpt-4o' }],
    ['router/meta/llama-3', { provider: 'router', model: 'meta/llama-3' }],
    ['local/qwen3:8b', { provider: 'local', model: 'qwen3:8b' }],
  ])('%s', (ref, expected) => {
    expect(parseModelRef(ref)).toEqual(expected);
  });

  it.each([['gpt-4o'], ['/gpt-4o'], ['openai/'], [''], ['openai/gpt 4o'], [' openai/gpt-4o'], ['openai/gpt-4o\n']])('rejects %j', (ref) => {
    expect(tryParseModelRef(ref)).toBeUndefined();
    expect(() => parseModelRef(ref)).toThrow(ModelRefError);
    expect(() => parseModelRef(ref)).toThrow(`Invalid model "${ref}": expected "provider/model", e.g. "openai/gpt-4o"`);
  });
});

describe('resolveModel', () => {
  it.each([
    ['demo/agent', { provider: 'demo', id: 'agent', api: 'demo', contextWindow: 200_000, maxTokens: 8192, reasoning: true, cost: { input: 0, output: 0 } }],
    [
      'anthropic/claude-sonnet-4-5',
      { provider: 'anthropic', id: 'claude-sonnet-4-5', api: 'anthropic', baseUrl: 'https://api.anthropic.com', contextWindow: 200_000, maxTokens: 16_384, reasoning: true, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, input: ['text', 'image'] },
    ],
    [
      'openai/gpt-4o',
      { provider: 'openai', id: 'gpt-4o', api: 'openai-chat', baseUrl: 'https://api.openai.com/v1', contextWindow: 128_000, maxTokens: 16_384, reasoning: false, cost: { input: 2.5, output: 10, cacheRead: 1.25 }, input: ['text', 'image'] },
    ],
    ['openai/gpt-4.1', expect.objectContaining({ contextWindow: 1_047_576, reasoning: false })],
    ['openai/o4-mini', expect.objectContaining({ contextWindow: 200_000, reasoning: true })],
  ])('built-in %s without any config', (ref, expected) => {
    expect(resolveModel(defaultConfig(), ref)).toEqual(expected);
  });

  it.each([
    // configured provider: stated fields kept, the rest defaulted (128000 / 8192 / false)
    ['local/qwen3:8b', { provider: 'local', id: 'qwen3:8b', api: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', contextWindow: 32768, maxTokens: 8192, reasoning: true }],
    ['local/meta/llama-3', { provider: 'local', id: 'meta/llama-3', api: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', contextWindow: 128_000, maxTokens: 8192, reasoning: false }],
    // a built-in name overrides baseUrl for every model, overrides a model by id (unstated fields from the built-in)…
    ['anthropic/claude-haiku-4-5', { provider: 'anthropic', id: 'claude-haiku-4-5', api: 'anthropic', baseUrl: 'http://127.0.0.1:9999', contextWindow: 200_000, maxTokens: 4096, reasoning: true, cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, input: ['text', 'image'] }],
    ['anthropic/claude-opus-4-1', expect.objectContaining({ baseUrl: 'http://127.0.0.1:9999', maxTokens: 32_000 })],
    // …and adds models, with the generic defaults (X4: a well-known id gets its list price; X3: text only unless said)
    ['anthropic/claude-3-7-sonnet', { provider: 'anthropic', id: 'claude-3-7-sonnet', api: 'anthropic', baseUrl: 'http://127.0.0.1:9999', contextWindow: 128_000, maxTokens: 8192, reasoning: false, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }],
    // api override keeps the built-in baseUrl
    ['openai/gpt-4o', expect.objectContaining({ api: 'openai-responses', baseUrl: 'https://api.openai.com/v1' })],
  ])('configured %s', (ref, expected) => {
    expect(resolveModel(configured, ref)).toEqual(expected);
  });

  it.each([
    ['openai/gpt-5', 'Unknown model "openai/gpt-5": provider "openai" has no model "gpt-5". Known models of openai: gpt-4o, gpt-4.1, o4-mini'],
    ['nope/x', 'Unknown model "nope/x": no provider "nope". Known providers: anthropic, openai, demo'],
    ['gpt-4o', 'Unknown model "gpt-4o": expected "provider/model", e.g. "openai/gpt-4o"'],
    ['demo/Agent', 'Unknown model "demo/Agent": provider "demo" has no model "Agent". Known models of demo: agent'],
  ])('%s → ModelNotFoundError', (ref, message) => {
    const err = (() => {
      try {
        resolveModel(defaultConfig(), ref);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ModelNotFoundError);
    expect((err as ModelNotFoundError).name).toBe('ModelNotFoundError');
    expect((err as ModelNotFoundError).ref).toBe(ref);
    expect((err as Error).message).toBe(message);
  });

  it('lists configured providers among the known ones', () => {
    expect(() => resolveModel(configured, 'nope/x')).toThrow('Known providers: anthropic, openai, demo, local');
  });
});

describe('listModels / providerNames', () => {
  it('built-ins only', () => {
    expect(listModels(defaultConfig()).map((m) => `${m.provider}/${m.id}`)).toEqual([
      'anthropic/claude-sonnet-4-5',
      'anthropic/claude-opus-4-1',
      'anthropic/claude-haiku-4-5',
      'openai/gpt-4o',
      'openai/gpt-4.1',
      'openai/o4-mini',
      'demo/agent',
    ]);
  });

  it('with config: overrides in place, additions after, custom providers last', () => {
    expect(listModels(configured).map((m) => `${m.provider}/${m.id}`)).toEqual([
      'anthropic/claude-sonnet-4-5',
      'anthropic/claude-opus-4-1',
      'anthropic/claude-haiku-4-5',
      'anthropic/claude-3-7-sonnet',
      'openai/gpt-4o',
      'openai/gpt-4.1',
      'openai/o4-mini',
      'demo/agent',
      'local/qwen3:8b',
      'local/meta/llama-3',
    ]);
    expect(providerNames(configured)).toEqual(['anthropic', 'openai', 'demo', 'local']);
  });
});

describe('context window (E5)', () => {
  it.each([
    [200_000, undefined, 200_000],
    [200_000, 100_000, 100_000],
    [32_768, 100_000, 32_768], // a cap never raises the window
  ])('window %i with contextTokens %s → %i', (window, cap, expected) => {
    const config = parseConfig(JSON.stringify(cap === undefined ? {} : { agent: { contextTokens: cap } }));
    const model = { provider: 'p', id: 'm', api: 'demo' as const, contextWindow: window, maxTokens: 1, reasoning: false };
    expect(effectiveContextTokens(model, config)).toBe(expected);
  });

  it('constants', () => {
    expect([CONTEXT_WARN_BELOW, CONTEXT_MIN]).toEqual([32_000, 16_000]);
  });

  it.each([
    [0, 'refuse'],
    [15_999, 'refuse'],
    [16_000, 'warn'],
    [31_999, 'warn'],
    [32_000, 'ok'],
    [200_000, 'ok'],
  ] as const)('checkContextWindow(%i) = %s', (tokens, expected) => {
    expect(checkContextWindow(tokens)).toBe(expected);
  });
});

describe('defaultModelRef', () => {
  const withPrimary = parseConfig(JSON.stringify({ agent: { model: { primary: 'local/x' } }, providers: { local: { api: 'openai-chat', baseUrl: 'http://x' } } }));
  it.each([
    ['primary wins over keys', withPrimary, { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }, 'local/x'],
    ['anthropic key', defaultConfig(), { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }, 'anthropic/claude-sonnet-4-5'],
    ['openai key', defaultConfig(), { OPENAI_API_KEY: 'o' }, 'openai/gpt-4o'],
    ['blank key counts as none', defaultConfig(), { ANTHROPIC_API_KEY: '  ' }, 'demo/agent'],
    ['nothing', defaultConfig(), {}, 'demo/agent'],
  ])('%s', (_name, config, env, expected) => {
    expect(defaultModelRef(config, env)).toBe(expected);
  });
});
