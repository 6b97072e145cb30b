/**
 * D4: the models an endpoint offers (GET {baseUrl}/models) through the official SDKs — Ollama, LM Studio, vLLM and
 * OpenRouter answer the OpenAI shape; Anthropic its own. Used by Settings to fill an endpoint's model list.
 */
import type { ApiKind } from './types.js';
import { openAIClient } from './openai-client.js';

export async function listEndpointModels(api: Exclude<ApiKind, 'demo'>, baseUrl: string, apiKey: string | undefined): Promise<string[]> {
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
