/**
 * OpenAI Chat Completions StreamFn (also OpenAI-compatible servers). Iterates raw chunks: the SDK's stream helper
 * throws on deltas without `role` or tool-call `type`, and keeps only the last fragment of non-standard
 * reasoning fields.
 */
import type OpenAI from 'openai';
import { ClientCache } from './client-cache.js';
import { StreamTruncatedError } from './errors.js';
import { OpenAIChunkAssembler } from './openai-chunks.js';
import { mapOpenAIFinishReason, toOpenAIParams } from './openai-convert.js';
import { runProviderStream, type DoneReason, type StreamContext } from './stream-runner.js';
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

// The SDK is loaded on first use: a run that never talks to OpenAI does not pay its load time.
let sdk: Promise<typeof import('openai')> | undefined;
let OpenAIClient: typeof OpenAI | undefined;
const clients = new ClientCache<OpenAI>(
  (baseUrl, apiKey) =>
    // The engine does its own failover; openai 6.x also sleeps any retry-after while ignoring abort.
    new OpenAIClient!({ apiKey: apiKey || 'none', ...(baseUrl ? { baseURL: baseUrl } : {}), maxRetries: 0 }),
);

export const streamOpenAIChat: StreamFn = (req) => runProviderStream(req, (ctx) => openAIChatBody(req, ctx));

async function* openAIChatBody(req: StreamRequest, ctx: StreamContext): AsyncGenerator<ProviderEvent, DoneReason> {
  OpenAIClient ??= (await (sdk ??= import('openai'))).default;
  const client = clients.get(req.model.baseUrl, req.apiKey);
  const stream = await ctx.watch(
    client.chat.completions.create(toOpenAIParams(req), {
      signal: ctx.signal,
      ...(req.headers ? { headers: req.headers } : {}),
    }),
  );
  const assembler = new OpenAIChunkAssembler(ctx.builder);
  for await (const chunk of ctx.events(stream)) yield* assembler.push(chunk);
  if (assembler.finishReason === undefined) throw new StreamTruncatedError('OpenAI stream ended before finish_reason');
  return mapOpenAIFinishReason(assembler.finishReason);
}
