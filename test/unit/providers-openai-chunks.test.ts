import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { AssistantBuilder } from '../../main/providers/assistant-builder.js';
import { OpenAIChunkAssembler } from '../../main/providers/openai-chunks.js';
import type { ModelDef, ProviderEvent } from '../../main/providers/types.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
const model: ModelDef = { provider: 'ollama', id: 'qwen', api: 'openai-chat', contextWindow: 1, maxTokens: 1, reasoning: true };

const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): Chunk =>
  ({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra }) as unknown as Chunk;

function run(chunks: Chunk[]) {
  const b = new AssistantBuilder(model);
  const a = new OpenAIChunkAssembler(b);
  const events: ProviderEvent[] = chunks.flatMap((c) => a.push(c));
  return { events, message: b.snapshot('stop'), finish: a.finishReason };
}

describe('OpenAIChunkAssembler', () => {
  it.each(['reasoning_content', 'reasoning'])('reads thinking from delta.%s and keeps blocks in order', (field) => {
    const { message } = run([
      chunk({ role: 'assistant', content: '' }),
      chunk({ [field]: 'think ' }),
      chunk({ [field]: 'more' }),
      chunk({ content: 'Answer' }),
      chunk({ [field]: 'again' }),
      chunk({ content: '!' }, 'stop'),
    ]);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'think more' },
      { type: 'text', text: 'Answer' },
      { type: 'thinking', thinking: 'again' },
      { type: 'text', text: '!' },
    ]);
  });

  it('assembles fragmented parallel calls by index', () => {
    const { events, message, finish } = run([
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'list', arguments: '{"pa' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'th":"."}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(finish).toBe('tool_calls');
    expect(message.content).toEqual([
      { type: 'toolCall', id: 'call_a', name: 'read', arguments: { path: 'a' } },
      { type: 'toolCall', id: 'call_b', name: 'list', arguments: { path: '.' } },
    ]);
    expect(events.filter((e) => e.type === 'toolcall_end').map((e) => (e as { id: string }).id)).toEqual(['call_a', 'call_b']);
  });

  it('handles Ollama whole calls, a missing index, object arguments and a repeated name', () => {
    const { message } = run([
      chunk({ role: 'assistant', content: '', tool_calls: [{ id: 'o1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] }),
      chunk({ role: 'assistant', content: '', tool_calls: [{ id: 'o2', type: 'function', function: { name: 'read', arguments: { path: 'b' } } }] }),
      chunk({ tool_calls: [{ index: 5, id: 'o3', function: { name: 'list', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 5, function: { name: 'list', arguments: '' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(message.content).toEqual([
      { type: 'toolCall', id: 'o1', name: 'read', arguments: { path: 'a' } },
      { type: 'toolCall', id: 'o2', name: 'read', arguments: { path: 'b' } },
      { type: 'toolCall', id: 'o3', name: 'list', arguments: {} },
    ]);
  });

  it('buffers argument fragments that arrive before the name', () => {
    const { events, message } = run([
      chunk({ tool_calls: [{ index: 0, id: 'x', function: { arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'read', arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'toolcall_start', 'toolcall_delta', 'toolcall_end']);
    expect(message.content).toEqual([{ type: 'toolCall', id: 'x', name: 'read', arguments: { a: 1 } }]);
  });

  it('maps the final usage chunk with choices: []', () => {
    const { events } = run([
      chunk({ content: 'hi' }, 'stop'),
      { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 60 } } } as unknown as Chunk,
    ]);
    expect(events.at(-1)).toEqual({ type: 'usage', usage: { input: 40, cacheRead: 60, cacheWrite: 0, output: 7, total: 107 } });
  });

  it('throws on a flat (vLLM-style) error object', () => {
    expect(() => run([{ object: 'error', message: 'context too long', type: 'BadRequestError' } as unknown as Chunk])).toThrow('context too long');
  });
});
