import { describe, expect, it } from 'vitest';
import { streamAnthropic } from '../../main/providers/anthropic.js';
import { DEMO_MODEL } from '../../main/providers/demo.js';
import { streamOpenAIChat } from '../../main/providers/openai-chat.js';
import { streamFnFor } from '../../main/providers/registry.js';
import type { ProviderEvent } from '../../main/providers/types.js';

describe('streamFnFor', () => {
  it('maps the real APIs to their StreamFns', () => {
    expect(streamFnFor('anthropic')).toBe(streamAnthropic);
    expect(streamFnFor('openai-chat')).toBe(streamOpenAIChat);
    expect(typeof streamFnFor('demo')).toBe('function');
  });

  it('ends openai-responses with one error event instead of throwing', async () => {
    const events: ProviderEvent[] = [];
    const fn = streamFnFor('openai-responses');
    const model = { ...DEMO_MODEL, provider: 'openai', id: 'gpt-x', api: 'openai-responses' as const };
    for await (const e of fn({ model, apiKey: 'k', systemPrompt: '', messages: [], tools: [], thinking: 'off', signal: new AbortController().signal, idleTimeoutMs: 1000 })) {
      events.push(e);
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'error',
      message: { stopReason: 'error', errorMessage: 'openai-responses is not supported yet', provider: 'openai', model: 'gpt-x', content: [] },
    });
  });
});
