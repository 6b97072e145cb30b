/**
 * The official `openai` client shared by the Chat Completions and Responses StreamFns: loaded on first use (a run
 * that never talks to OpenAI does not pay its load time), one client per (baseUrl, apiKey).
 */
import type OpenAI from 'openai';
import { ClientCache } from './client-cache.js';

let sdk: Promise<typeof import('openai')> | undefined;
let OpenAIClient: typeof OpenAI | undefined;
const clients = new ClientCache<OpenAI>(
  (baseUrl, apiKey) =>
    // The engine does its own failover; openai 6.x also sleeps any retry-after while ignoring abort.
    new OpenAIClient!({ apiKey: apiKey || 'none', ...(baseUrl ? { baseURL: baseUrl } : {}), maxRetries: 0 }),
);

/** Starts (once) loading the SDK; a run's first call awaits the same load. */
export const loadOpenAISdk = () => (sdk ??= import('openai'));

export async function openAIClient(baseUrl: string | undefined, apiKey: string): Promise<OpenAI> {
  OpenAIClient ??= (await loadOpenAISdk()).default;
  return clients.get(baseUrl, apiKey);
}
