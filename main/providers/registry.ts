/** Which StreamFn serves each API kind. */
import { loadAnthropicSdk, streamAnthropic } from './anthropic.js';
import { createDemoStream } from './demo.js';
import { streamOpenAIChat } from './openai-chat.js';
import { loadOpenAISdk } from './openai-client.js';
import { streamOpenAIResponses } from './openai-responses.js';
import { withThinkingFallback } from './thinking-fallback.js';
import type { ApiKind, StreamFn } from './types.js';

const demoStream = createDemoStream();
// E21: a rejected thinking level is retried once a level lower, for every real API.
const anthropicStream = withThinkingFallback(streamAnthropic);
const openAIChatStream = withThinkingFallback(streamOpenAIChat);
const openAIResponsesStream = withThinkingFallback(streamOpenAIResponses);

export function streamFnFor(api: ApiKind): StreamFn {
  switch (api) {
    case 'anthropic':
      return anthropicStream;
    case 'openai-chat':
      return openAIChatStream;
    case 'openai-responses':
      return openAIResponsesStream;
    case 'demo':
      return demoStream;
  }
}

/**
 * Starts loading the SDK `api` needs, so that its files are read while the run prepares (session, keys, prompt)
 * instead of after. A failure here is ignored: the run's own call reports it.
 */
export function preloadProvider(api: ApiKind): void {
  if (api === 'anthropic') loadAnthropicSdk().catch(() => undefined);
  else if (api === 'openai-chat' || api === 'openai-responses') loadOpenAISdk().catch(() => undefined);
}
