/** Pure parts of the OpenAI Responses provider: input items, pairing, stop reason, usage, and the event mapper. */
import { describe, expect, it } from 'vitest';
import { emptyUsage, type AssistantMessage, type Message } from '../../main/engine/messages.js';
import { missingResultTextFor } from '../../main/engine/attempt/pairing.js';
import { AssistantBuilder } from '../../main/providers/assistant-builder.js';
import { mapResponsesStop, mapResponsesUsage, toResponsesInput } from '../../main/providers/openai-responses-convert.js';
import { ResponsesEventMapper, ResponsesStreamError } from '../../main/providers/openai-responses-events.js';
import type { ModelDef } from '../../main/providers/types.js';

const model: ModelDef = { provider: 'oai', id: 'o4-mini', api: 'openai-responses', contextWindow: 1000, maxTokens: 100, reasoning: true };
const U = (content: string): Message => ({ role: 'user', content, timestamp: 0 });
const R = (id: string, content = `r${id}`): Message => ({ role: 'toolResult', toolCallId: id, toolName: 't', content, isError: false, timestamp: 0 });
const A = (calls: string[], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: 'assistant',
  content: calls.map((id) => ({ type: 'toolCall' as const, id, name: 't', arguments: {} })),
  provider: 'oai', model: 'o4-mini', api: 'openai-responses', usage: emptyUsage(), stopReason: 'toolUse', timestamp: 0, ...extra,
});
const call = (id: string) => ({ type: 'function_call', call_id: id, name: 't', arguments: '{}' });
const out = (id: string, output = `r${id}`) => ({ type: 'function_call_output', call_id: id, output });

describe('toResponsesInput pairing: every function call answered', () => {
  it.each<[string, Message[], unknown[]]>([
    ['answered call', [U('q'), A(['a']), R('a')], [{ role: 'user', content: 'q' }, call('a'), out('a')]],
    ['missing result → "aborted"', [U('q'), A(['a', 'b']), R('b'), U('next')], [{ role: 'user', content: 'q' }, call('a'), call('b'), out('b'), out('a', 'aborted'), { role: 'user', content: 'next' }]],
    ['missing at the end', [A(['a'])], [call('a'), out('a', 'aborted')]],
    ['orphan result dropped', [U('q'), R('zz'), A(['a']), R('a'), R('a', 'dup')], [{ role: 'user', content: 'q' }, call('a'), out('a')]],
    ['reused call id across turns', [A(['call_0']), R('call_0', 'one'), A(['call_0']), R('call_0', 'two')], [call('call_0'), out('call_0', 'one'), call('call_0'), out('call_0', 'two')]],
    ['empty tool output', [A(['a']), R('a', '')], [call('a'), out('a', '(no output)')]],
  ])('%s', (_n, messages, expected) => {
    expect(toResponsesInput(messages, model)).toEqual(expected);
  });

  it('replays reasoning only from the same provider and API, and only with encrypted content', () => {
    const thinking = { type: 'thinking' as const, thinking: 'plan', itemId: 'rs_1', encrypted: 'ENC' };
    const own = A([], { content: [thinking, { type: 'text', text: 'hi', itemId: 'msg_1' }], stopReason: 'stop' });
    const otherProvider = { ...own, provider: 'other' };
    const noEncrypted = A([], { content: [{ ...thinking, encrypted: undefined }], stopReason: 'stop' });
    expect(toResponsesInput([own], model)).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'plan' }], encrypted_content: 'ENC' },
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] },
    ]);
    expect(toResponsesInput([otherProvider], model)).toEqual([{ role: 'assistant', content: 'hi' }]);
    expect(toResponsesInput([noEncrypted], model)).toEqual([]);
  });
});

describe('missingResultTextFor', () => {
  it.each([
    ['openai-responses', 'aborted'],
    ['anthropic', '[agentdesk] missing tool result — the call was interrupted'],
    ['openai-chat', '[agentdesk] missing tool result — the call was interrupted'],
  ])('%s → %s', (api, text) => expect(missingResultTextFor(api)).toBe(text));
});

describe('mapResponsesStop / mapResponsesUsage', () => {
  it.each([
    ['completed', null, false, 'stop'],
    ['completed', null, true, 'toolUse'],
    ['incomplete', 'max_output_tokens', true, 'length'],
    ['incomplete', 'content_filter', false, 'stop'],
  ] as const)('%s/%s/calls=%s → %s', (status, reason, calls, expected) => {
    expect(mapResponsesStop(status, reason, calls)).toBe(expected);
  });

  it.each([
    [{ input_tokens: 1200, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 80 }, { input: 176, cacheRead: 1024, cacheWrite: 0, output: 80, total: 1280 }],
    [{ input_tokens: 10, output_tokens: 5 }, { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, total: 15 }],
    [{ input_tokens: 5, input_tokens_details: { cached_tokens: 9 }, output_tokens: null }, { input: 0, cacheRead: 5, cacheWrite: 0, output: 0, total: 5 }],
  ])('%j → %j', (u, expected) => expect(mapResponsesUsage(u)).toEqual(expected));
});

describe('ResponsesEventMapper', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- hand-written wire events
  const push = (m: ResponsesEventMapper, ev: any) => m.push(ev);

  it('joins summary parts, takes whole arguments when no deltas came, keeps item ids', () => {
    const b = new AssistantBuilder(model, () => 0);
    const m = new ResponsesEventMapper(b);
    push(m, { type: 'response.created', response: { id: 'resp_1' } });
    push(m, { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } });
    push(m, { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, delta: 'One.' });
    push(m, { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 1, delta: 'Two.' });
    push(m, { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'E' } });
    push(m, { type: 'response.output_item.added', output_index: 1, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: ' read ', arguments: '' } });
    const ended = push(m, { type: 'response.function_call_arguments.done', output_index: 1, item_id: 'fc_1', arguments: '{"path":"a"}' });
    expect(ended.map((e) => e.type)).toEqual(['toolcall_delta', 'toolcall_end']);
    push(m, { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 2 } } });
    expect(m.done).toBe('toolUse');
    expect(b.snapshot('toolUse').content).toEqual([
      { type: 'thinking', thinking: 'One.\n\nTwo.', itemId: 'rs_1', encrypted: 'E' },
      { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a' }, itemId: 'fc_1' },
    ]);
  });

  it.each([
    ['response.failed', { type: 'response.failed', response: { error: { code: 'server_error', message: 'Overloaded' } } }, 'server_error'],
    ['flat error event', { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null }, 'rate_limit_exceeded'],
  ])('%s throws a ResponsesStreamError with the code', (_n, ev, code) => {
    const m = new ResponsesEventMapper(new AssistantBuilder(model));
    expect(() => push(m, ev)).toThrow(ResponsesStreamError);
    try {
      push(m, ev);
    } catch (e) {
      expect((e as ResponsesStreamError).code).toBe(code);
    }
  });
});
