/**
 * D4: the models an endpoint offers (GET {baseUrl}/models) through the official SDKs — Ollama, LM Studio, vLLM and
 * OpenRouter answer the OpenAI shape; Anthropic its own. Used by Settings to fill an endpoint's model list.
 */
import type { AppConfig } from '../engine/config/schema.js';
import { providerModels } from '../engine/models.js';
import type { ApiKind } from './types.js';
import { openAIClient } from './openai-client.js';
import { secretRedactor } from '../auth/redact.js';

export async function listEndpointModels(api: Exclude<ApiKind, 'demo'>, baseUrl: string, apiKey: string | undefined): Promise<string[]> {
  secretRedactor.add(apiKey);
  try {
    return await listModels(api, baseUrl, apiKey);
  } catch (err) {
    throw secretRedactor.redactError(err); // X5: a server that quotes the key back does not get it shown
  }
}

async function listModels(api: Exclude<ApiKind, 'demo'>, baseUrl: string, apiKey: string | undefined): Promise<string[]> {
  const signal = AbortSignal.timeout(15_000);
  if (api === 'anthropic') {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ apiKey: apiKey || 'none', baseURL: baseUrl, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list({}, { signal })) ids.push(m.id);
    return ids;
  }
  const client = await openAIClient(baseUrl, apiKey ?? '');
  const ids: string[] = [];
  for await (const m of client.models.list({ signal })) ids.push(m.id);
  return ids;
}

/** URLs compared as endpoints: scheme, host (lower case), port (default filled in), path without a trailing slash. */
export function sameEndpoint(a: string, b: string): boolean {
  const norm = (u: string): string | undefined => {
    try {
      const url = new URL(u);
      const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
      return `${url.protocol}//${url.hostname.toLowerCase()}:${port}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return undefined;
    }
  };
  const na = norm(a);
  return na !== undefined && na === norm(b);
}

/** The base URL a provider's requests go to (config.json / settings, else the built-in one). */
export function configuredBaseUrl(config: AppConfig, provider: string): string | undefined {
  const own = Object.hasOwn(config.providers, provider) ? config.providers[provider]?.baseUrl : undefined;
  return own ?? providerModels(config, provider)?.[0]?.baseUrl;
}

/**
 * `providers.fetchModels` (D4, X5): a provider's stored key goes only to that provider's configured base URL.
 * Settings may ask for the models of any URL (a new endpoint being filled in); there the request carries no key,
 * and a refusal says why.
 */
export async function fetchEndpointModels(
  config: AppConfig,
  api: Exclude<ApiKind, 'demo'>,
  baseUrl: string,
  provider: string | undefined,
  keyOf: (provider: string) => Promise<string | undefined>,
): Promise<string[]> {
  const configured = provider ? configuredBaseUrl(config, provider) : undefined;
  const withheld = provider !== undefined && !(configured !== undefined && sameEndpoint(configured, baseUrl));
  const key = provider && !withheld ? await keyOf(provider) : undefined;
  try {
    return await listEndpointModels(api, baseUrl, key);
  } catch (err) {
    if (withheld && err instanceof Error) {
      err.message += ` (no key was sent: ${provider}'s stored key goes only to its saved base URL${configured ? ` ${configured}` : ''}; save the endpoint first)`;
    }
    throw err;
  }
}
