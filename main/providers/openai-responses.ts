/**
 * OpenAI Responses API StreamFn (`api: "openai-responses"`): `client.responses.create({stream:true})` through the
 * official SDK (maxRetries 0), raw events mapped by ResponsesEventMapper into the normalised stream. Stateless
 * (`store: false`): reasoning items travel in the request as encrypted content (openai-responses-convert.ts).
 */
import { StreamTruncatedError } from './errors.js';
import { openAIClient } from './openai-client.js';
import { toResponsesParams } from './openai-responses-convert.js';
import { ResponsesEventMapper } from './openai-responses-events.js';
import { runProviderStream, type DoneReason, type StreamContext } from './stream-runner.js';
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

export const streamOpenAIResponses: StreamFn = (req) => runProviderStream(req, (ctx) => responsesBody(req, ctx));

async function* responsesBody(req: StreamRequest, ctx: StreamContext): AsyncGenerator<ProviderEvent, DoneReason> {
  const client = await openAIClient(req.model.baseUrl, req.apiKey);
  const stream = await ctx.watch(
    client.responses.create(toResponsesParams(req), {
      signal: ctx.signal,
      ...(req.headers ? { headers: req.headers } : {}),
    }),
  );
  const mapper = new ResponsesEventMapper(ctx.builder);
  for await (const ev of ctx.events(stream)) {
    yield* mapper.push(ev);
    if (mapper.done !== undefined) break;
  }
  if (mapper.done === undefined) throw new StreamTruncatedError('OpenAI Responses stream ended before response.completed');
  return mapper.done;
}
