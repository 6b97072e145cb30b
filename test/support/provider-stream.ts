/** Shared by the provider integration tests: a baseline StreamRequest and a runner that collects the stream. */
import type { AssistantMessage } from '../../main/engine/messages.js';
import type { ModelDef, ProviderEvent, StreamFn, StreamRequest } from '../../main/providers/types.js';

export interface StreamRun {
  events: ProviderEvent[];
  message: AssistantMessage;
  last: ProviderEvent;
}

/** Runs a StreamFn to its end; fails when the stream ends without its terminal event (the contract). */
export async function runStream(fn: StreamFn, req: StreamRequest): Promise<StreamRun> {
  const events: ProviderEvent[] = [];
  for await (const e of fn(req)) events.push(e);
  const last = events.at(-1)!;
  if (last.type !== 'done' && last.type !== 'error') throw new Error('no terminal event');
  return { events, message: last.message, last };
}

export function baseRequest(model: ModelDef, apiKey: string, over: Partial<StreamRequest> = {}): StreamRequest {
  return {
    model,
    apiKey,
    systemPrompt: 'You are a coding agent.',
    messages: [{ role: 'user', content: 'hi', timestamp: 0 }],
    tools: [],
    thinking: 'off',
    signal: new AbortController().signal,
    idleTimeoutMs: 5_000,
    ...over,
  };
}
