/** Which StreamFn serves each API kind. */
import { streamAnthropic } from './anthropic.js';
import { createDemoStream } from './demo.js';
import { streamOpenAIChat } from './openai-chat.js';
import { failingStream } from './stream-runner.js';
import type { ApiKind, StreamFn } from './types.js';

const demoStream = createDemoStream();

const streamOpenAIResponses: StreamFn = (req) =>
  failingStream(req, new Error('openai-responses is not supported yet'));

export function streamFnFor(api: ApiKind): StreamFn {
  switch (api) {
    case 'anthropic':
      return streamAnthropic;
    case 'openai-chat':
      return streamOpenAIChat;
    case 'openai-responses':
      return streamOpenAIResponses;
    case 'demo':
      return demoStream;
  }
}
