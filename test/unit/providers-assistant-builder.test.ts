import { describe, expect, it } from 'vitest';
import { AssistantBuilder } from '../../main/providers/assistant-builder.js';
import type { ModelDef } from '../../main/providers/types.js';

const model: ModelDef = { provider: 'p', id: 'm', api: 'anthropic', contextWindow: 1, maxTokens: 1, reasoning: true };

describe('AssistantBuilder', () => {
  it('creates blocks lazily so event indices equal final content indices', () => {
    const b = new AssistantBuilder(model);
    expect(b.appendText('0', '')).toBeUndefined(); // empty text block never materialises
    expect(b.appendThinking('1', 'hmm')).toEqual({ type: 'thinking_delta', index: 0, delta: 'hmm' });
    b.appendSignature('1', 'SIG');
    expect(b.appendText('2', 'Hi')).toEqual({ type: 'text_delta', index: 1, delta: 'Hi' });
    const { index, event } = b.startToolCall('t1', 'read');
    expect(index).toBe(2);
    expect(event).toEqual({ type: 'toolcall_start', index: 2, id: 't1', name: 'read' });
    expect(b.appendToolArgs(2, '{"path":')).toEqual({ type: 'toolcall_delta', index: 2, delta: '{"path":' });
    b.appendToolArgs(2, '"a"}');
    expect(b.endToolCall(2)).toEqual({ type: 'toolcall_end', index: 2, id: 't1', name: 'read', arguments: { path: 'a' } });
    expect(b.endToolCall(2)).toBeUndefined(); // only once
    expect(b.snapshot('toolUse').content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'SIG' },
      { type: 'text', text: 'Hi' },
      { type: 'toolCall', id: 't1', name: 'read', arguments: { path: 'a' } },
    ]);
  });

  it('keeps a signature-only thinking block (display omitted) and redacted thinking', () => {
    const b = new AssistantBuilder(model);
    b.appendSignature('0', 'SIG');
    b.addRedactedThinking('OPAQUE');
    expect(b.snapshot('stop').content).toEqual([
      { type: 'thinking', thinking: '', signature: 'SIG' },
      { type: 'thinking', thinking: '', redacted: 'OPAQUE' },
    ]);
  });

  it('reports a parse error without throwing and gives best-effort args to calls still open', () => {
    const b = new AssistantBuilder(model);
    b.startToolCall('t1', 'read');
    b.appendToolArgs(0, '{"path": nope');
    b.startToolCall('t2', 'list');
    b.appendToolArgs(1, '{"path":"sr');
    const end = b.endToolCall(0)!;
    expect(end.arguments).toEqual({});
    expect(end.parseError).toMatch(/^its arguments are not valid JSON/);
    const msg = b.snapshot('error', 'boom');
    expect(msg.content[1]).toEqual({ type: 'toolCall', id: 't2', name: 'list', arguments: { path: 'sr' } });
    expect(msg).toMatchObject({ stopReason: 'error', errorMessage: 'boom' });
    expect(b.endOpenToolCalls().map((e) => e.id)).toEqual(['t2']);
  });

  it('a call cut by the output token limit does not run, even when its arguments could be completed (issue 21)', () => {
    const b = new AssistantBuilder(model);
    b.startToolCall('t1', 'read');
    b.appendToolArgs(0, '{"path":"done.txt"}');
    b.startToolCall('t2', 'write');
    b.appendToolArgs(1, '{"path":"/tmp');
    b.startToolCall('t3', 'write');
    b.appendToolArgs(2, '{"path":"a.txt"');
    const ends = b.endOpenToolCalls(true);
    expect(ends[0]).not.toHaveProperty('parseError'); // complete before the limit: runs
    expect(ends[1]!.parseError).toMatch(/^the reply reached the output token limit while its arguments were being written/);
    expect(ends[1]!.arguments).toEqual({ path: '/tmp' }); // shown as far as it came
    expect(ends[2]!.parseError).toMatch(/output token limit/); // a slip repair is not trusted at the limit
  });

  it('snapshots are copies: later deltas do not change an earlier snapshot', () => {
    const b = new AssistantBuilder(model);
    b.appendText('0', 'a');
    const first = b.snapshot('stop');
    b.appendText('0', 'b');
    expect(first.content).toEqual([{ type: 'text', text: 'a' }]);
  });
});
