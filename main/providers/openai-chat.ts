/**
 * OpenAI Chat Completions StreamFn (also OpenAI-compatible servers). Iterates raw chunks: the SDK's stream helper
 * throws on deltas without `role` or tool-call `type`, and keeps only the last fragment of non-standard
 * reasoning fields. A completion ended with a failure finish_reason ("error", "network_error", …) ends the stream
 * with an error, never as an answer.
 */
import { ProviderFinishError, StreamTruncatedError } from './errors.js';
import { openAIClient } from './openai-client.js';
import { OpenAIChunkAssembler } from './openai-chunks.js';
import { mapOpenAIFinishReason, openAIFinishFailure, toOpenAIParams } from './openai-convert.js';
import { runProviderStream, type DoneReason, type StreamContext } from './stream-runner.js';
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

export const streamOpenAIChat: StreamFn = (req) => runProviderStream(req, (ctx) => openAIChatBody(req, ctx));

async function* openAIChatBody(req: StreamRequest, ctx: StreamContext): AsyncGenerator<ProviderEvent, DoneReason> {
  const client = await openAIClient(req.model.baseUrl, req.apiKey);
  const stream = await ctx.watch(
    client.chat.completions.create(toOpenAIParams(req), {
      signal: ctx.signal,
      ...(req.headers ? { headers: req.headers } : {}),
    }),
  );
  const assembler = new OpenAIChunkAssembler(ctx.builder);
  for await (const chunk of ctx.events(stream)) yield* assembler.push(chunk);
  if (assembler.finishReason === undefined) throw new StreamTruncatedError('OpenAI stream ended before finish_reason');
  const failure = openAIFinishFailure(assembler.finishReason);
  if (failure !== undefined) throw new ProviderFinishError(failure);
  return mapOpenAIFinishReason(assembler.finishReason);
}
