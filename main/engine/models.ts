/**
 * E5 model catalogue. Built-in providers exist without any config; a configured provider with a built-in name
 * overrides its api/baseUrl and adds (or overrides, by id) models. Refs are "provider/model", split at the FIRST
 * '/' because model ids may contain '/' ("openrouter/meta-llama/llama-3.1-8b").
 */
import { knownPrice } from '../usage/prices.js';
import { DEMO_MODEL } from '../providers/demo.js';
import type { AppConfig, ModelConfig, ProviderConfig } from './config/schema.js';
import type { ApiKind, ModelCost, ModelDef } from '../providers/types.js';

export const CONTEXT_WARN_BELOW = 32_000;
export const CONTEXT_MIN = 16_000;

/** Defaults for a configured model that does not state them. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_MAX_TOKENS = 8_192;

interface BuiltInProvider {
  api: ApiKind;
  baseUrl?: string;
  /** The environment variable of the built-in `NAME:env` profile. */
  apiKeyEnv?: string;
  models: { id: string; contextWindow: number; maxTokens: number; reasoning: boolean; cost?: ModelCost }[];
}

export const BUILT_IN_PROVIDERS: Readonly<Record<string, BuiltInProvider>> = {
  anthropic: {
    api: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    models: [
      // Prices: USD per million tokens (the providers' list prices; config.json `cost` overrides).
      { id: 'claude-sonnet-4-5', contextWindow: 200_000, maxTokens: 16_384, reasoning: true, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
      { id: 'claude-opus-4-1', contextWindow: 200_000, maxTokens: 32_000, reasoning: true, cost: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } },
      { id: 'claude-haiku-4-5', contextWindow: 200_000, maxTokens: 8_192, reasoning: true, cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } },
    ],
  },
  openai: {
    api: 'openai-chat',
    baseUrl: 'https://api.openai.com/v1',
    apiKeyEnv: 'OPENAI_API_KEY',
    models: [
      { id: 'gpt-4o', contextWindow: 128_000, maxTokens: 16_384, reasoning: false, cost: { input: 2.5, output: 10, cacheRead: 1.25 } },
      { id: 'gpt-4.1', contextWindow: 1_047_576, maxTokens: 32_768, reasoning: false, cost: { input: 2, output: 8, cacheRead: 0.5 } },
      { id: 'o4-mini', contextWindow: 200_000, maxTokens: 100_000, reasoning: true },
    ],
  },
  demo: {
    api: 'demo',
    models: [
      { id: DEMO_MODEL.id, contextWindow: DEMO_MODEL.contextWindow, maxTokens: DEMO_MODEL.maxTokens, reasoning: DEMO_MODEL.reasoning, cost: { input: 0, output: 0 } },
    ],
  },
};

/** X3: built-in models that take images (`"input": ["text", "image"]`); a config entry's own `input` wins. */
const BUILT_IN_VISION: ReadonlySet<string> = new Set([
  'anthropic/claude-sonnet-4-5',
  'anthropic/claude-opus-4-1',
  'anthropic/claude-haiku-4-5',
  'openai/gpt-4o',
  'openai/gpt-4.1',
  'openai/o4-mini',
]);
const TEXT_AND_IMAGE: ReadonlyArray<'text' | 'image'> = ['text', 'image'];

/** Providers that cannot be configured (the offline demo model has no endpoint to override). */
export const RESERVED_PROVIDERS: ReadonlySet<string> = new Set(['demo']);

export class ModelNotFoundError extends Error {
  override name = 'ModelNotFoundError';
  constructor(
    message: string,
    readonly ref: string,
  ) {
    super(message);
  }
}

export class ModelRefError extends Error {
  override name = 'ModelRefError';
}

export interface ModelRef {
  provider: string;
  model: string;
}

/** The one definition of a ref's shape: "provider/model", both parts non-empty, no white space. */
export function tryParseModelRef(ref: string): ModelRef | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1 || /\s/.test(ref)) return undefined;
  return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}

/** A ref given in a request (gateway params, settings): parsed, or a ModelRefError that says what is expected. */
export function parseModelRef(ref: string): ModelRef {
  const parsed = tryParseModelRef(ref);
  if (!parsed) throw new ModelRefError(`Invalid model "${ref}": expected "provider/model", e.g. "openai/gpt-4o"`);
  return parsed;
}

/** All provider names: built-ins first, then configured ones in config order. */
export function providerNames(config: AppConfig): string[] {
  return [...new Set([...Object.keys(BUILT_IN_PROVIDERS), ...Object.keys(config.providers ?? {})])];
}

function mergeModel(provider: string, api: ApiKind, baseUrl: string | undefined, base: ModelDef | undefined, m: ModelConfig): ModelDef {
  return {
    provider,
    id: m.id,
    api,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    contextWindow: m.contextWindow ?? base?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxTokens: m.maxTokens ?? base?.maxTokens ?? DEFAULT_MAX_TOKENS,
    reasoning: m.reasoning ?? base?.reasoning ?? false,
    // X4: the entry's own price, else the built-in model's, else the list price of a well-known model id.
    ...((m.cost ?? base?.cost ?? knownPrice(m.id)) ? { cost: m.cost ?? base?.cost ?? knownPrice(m.id) } : {}),
    ...((m.input ?? base?.input) ? { input: m.input ?? base?.input } : {}),
  };
}

/** The models of one provider, or undefined when the provider does not exist. */
export function providerModels(config: AppConfig, provider: string): ModelDef[] | undefined {
  const builtIn = Object.hasOwn(BUILT_IN_PROVIDERS, provider) ? BUILT_IN_PROVIDERS[provider] : undefined;
  const configured: ProviderConfig | undefined =
    config.providers && Object.hasOwn(config.providers, provider) && !RESERVED_PROVIDERS.has(provider)
      ? config.providers[provider]
      : undefined;
  if (!builtIn && !configured) return undefined;
  // load.ts guarantees api for a configured provider without a built-in name; 'openai-chat' is a last resort.
  const api: ApiKind = configured?.api ?? builtIn?.api ?? 'openai-chat';
  const baseUrl = configured?.baseUrl ?? builtIn?.baseUrl;
  const out: ModelDef[] = (builtIn?.models ?? []).map((m) => ({
    provider,
    id: m.id,
    api,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    contextWindow: m.contextWindow,
    maxTokens: m.maxTokens,
    reasoning: m.reasoning,
    ...(m.cost ? { cost: m.cost } : {}),
    ...(BUILT_IN_VISION.has(`${provider}/${m.id}`) ? { input: TEXT_AND_IMAGE } : {}),
  }));
  for (const m of configured?.models ?? []) {
    const i = out.findIndex((x) => x.id === m.id);
    const merged = mergeModel(provider, api, baseUrl, i >= 0 ? out[i] : undefined, m);
    if (i >= 0) out[i] = merged;
    else out.push(merged);
  }
  return out;
}

export function listModels(config: AppConfig): ModelDef[] {
  return providerNames(config).flatMap((p) => providerModels(config, p) ?? []);
}

export function resolveModel(config: AppConfig, ref: string): ModelDef {
  const parsed = tryParseModelRef(ref);
  if (!parsed) throw new ModelNotFoundError(`Unknown model "${ref}": expected "provider/model", e.g. "openai/gpt-4o"`, ref);
  const models = providerModels(config, parsed.provider);
  if (!models) {
    throw new ModelNotFoundError(
      `Unknown model "${ref}": no provider "${parsed.provider}". Known providers: ${providerNames(config).join(', ')}`,
      ref,
    );
  }
  const found = models.find((m) => m.id === parsed.model);
  if (!found) {
    const known = models.length ? models.map((m) => m.id).join(', ') : '(none configured)';
    throw new ModelNotFoundError(
      `Unknown model "${ref}": provider "${parsed.provider}" has no model "${parsed.model}". Known models of ${parsed.provider}: ${known}`,
      ref,
    );
  }
  return found;
}

/** The window every budget decision uses: `agent.contextTokens` caps the model's own window (never raises it). */
export function effectiveContextTokens(model: ModelDef, config: AppConfig): number {
  const cap = config.agent?.contextTokens;
  return cap !== undefined ? Math.min(model.contextWindow, cap) : model.contextWindow;
}

/** E5 context guard. */
export function checkContextWindow(tokens: number): 'ok' | 'warn' | 'refuse' {
  if (tokens < CONTEXT_MIN) return 'refuse';
  if (tokens < CONTEXT_WARN_BELOW) return 'warn';
  return 'ok';
}

type Env = Readonly<Record<string, string | undefined>>;
const hasValue = (v: string | undefined) => v !== undefined && v.trim() !== '';

export function defaultModelRef(config: AppConfig, env: Env): string {
  const primary = config.agent?.model?.primary;
  if (primary) return primary;
  if (hasValue(env.ANTHROPIC_API_KEY)) return 'anthropic/claude-sonnet-4-5';
  if (hasValue(env.OPENAI_API_KEY)) return 'openai/gpt-4o';
  return 'demo/agent';
}

/** Idle watchdog per provider: configured timeoutSeconds, else 120 s for cloud APIs and 300 s for self-hosted ones. */
export function idleTimeoutFor(config: AppConfig, model: ModelDef): number {
  const configured = config.providers?.[model.provider]?.timeoutSeconds;
  if (configured) return configured * 1000;
  return model.provider === 'anthropic' || model.provider === 'openai' || model.api === 'demo' ? 120_000 : 300_000;
}
