import { mkdtemp, writeFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef } from '../../main/providers/types.js';
import { buildContext, runAttempt, type AttemptParams } from '../../main/engine/attempt/attempt.js';
import { scriptedStream, type ScriptedTurn } from '../support/scripted-stream.js';
import { attemptParams } from '../support/attempt-params.js';

const model: ModelDef = { provider: 'test', id: 'm', api: 'anthropic', contextWindow: 100_000, maxTokens: 1000, reasoning: true };

let workspace: string;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-attempt-')));
  await writeFile(join(workspace, 'hello.txt'), 'hello world\n');
});

function setup(turns: ScriptedTurn[], overrides: Partial<AttemptParams> = {}) {
  const stream = scriptedStream(turns);
  let clock = 1000;
  const messages: Message[] = [{ role: 'user', content: 'hi', timestamp: 1 }];
  const base = attemptParams({ model, workspace, streamFn: stream, messages, now: () => (clock += 5), eventClock: () => clock });
  return { ...base, params: { ...base.params, ...overrides }, stream };
}

describe('runAttempt', () => {
  it('runs a tool loop: stream, execute, append the result, call again, stop', async () => {
    const { params, events, persisted, stream } = setup([
      { thinking: ['Let me ', 'read it.'], text: ['Reading.'], toolCalls: [{ id: 't1', name: 'read', arguments: { path: 'hello.txt' } }], usage: { input: 100, output: 10 } },
      { text: ['The file ', 'says hello.'], usage: { input: 130, output: 7, cacheRead: 50 } },
    ]);
    const result = await runAttempt(params);
    expect(result.kind).toBe('ok');
    expect(result.parts.filter((x) => x.kind !== 'tool').map((x) => x.text)).toEqual(['Reading.', 'The file says hello.']);
    // E17: output accumulates, input/cache are the last call's, total = last prompt + accumulated output.
    expect(result.usage).toEqual({ input: 130, output: 17, cacheRead: 50, cacheWrite: 0, total: 130 + 50 + 17 });
    expect(persisted.map((m) => m.role)).toEqual(['assistant', 'toolResult', 'assistant']);
    const toolResult = persisted[1] as Extract<Message, { role: 'toolResult' }>;
    expect(toolResult).toMatchObject({ toolCallId: 't1', toolName: 'read', isError: false });
    expect(toolResult.content).toContain('hello world');
    // The second call saw the tool call and its result.
    expect(stream.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult']);
    // Gapless seq from 0, and text/tools keep their order.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    const kinds = events.map((e) => `${e.stream}:${'phase' in e.data ? e.data.phase : 'block' in e.data ? 'block' : ''}`);
    // E15: the pending block is flushed before the tool starts, and at the end of the message.
    expect(kinds).toEqual([
      'thinking:', 'thinking:', 'assistant:', 'assistant:block', 'tool:start', 'tool:end', 'assistant:', 'assistant:', 'assistant:block',
    ]);
    const end = events.find((e) => e.stream === 'tool' && 'phase' in e.data && e.data.phase === 'end')!.data;
    expect(end).toMatchObject({ name: 'read', isError: false });
    expect((end as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
  });

  it('assistant deltas are monotonic: a provider re-sending the full text at the end adds nothing twice', async () => {
    const { params, events } = setup([{ text: ['Hel', 'lo'], finalTextOverride: 'Hello' }, { text: ['x'] }]);
    await runAttempt(params);
    const deltas = events.filter((e) => e.stream === 'assistant').map((e) => (e.data as { delta: string }).delta);
    expect(deltas.join('')).toBe('Hello');
  });

  it('emits only the unseen suffix when the final message has more text than was streamed', async () => {
    const { params, events } = setup([{ text: ['Hel'], finalTextOverride: 'Hello there' }]);
    await runAttempt(params);
    const assistant = events
      .filter((e) => e.stream === 'assistant' && !('block' in e.data))
      .map((e) => e.data as { delta: string; text: string });
    expect(assistant.map((a) => a.delta)).toEqual(['Hel', 'lo there']);
    expect(assistant.at(-1)!.text).toBe('Hello there');
  });

  it('strips <think> tags split across chunks into the thinking stream', async () => {
    const { params, events, persisted } = setup([{ text: ['<thi', 'nk>plan it</th', 'ink>Answer.'] }]);
    const result = await runAttempt(params);
    expect(result.parts.filter((x) => x.kind !== 'tool').map((x) => x.text)).toEqual(['Answer.']);
    const thinking = events.filter((e) => e.stream === 'thinking').map((e) => (e.data as { delta: string }).delta).join('');
    expect(thinking).toBe('plan it');
    expect(persisted).toHaveLength(1);
  });

  it('turns unknown tools and invalid JSON arguments into error results, not crashes', async () => {
    const { params, persisted } = setup([
      {
        toolCalls: [
          { id: 'a', name: 'nope', arguments: {} },
          { id: 'b', name: 'read', arguments: {}, parseError: 'its arguments are not valid JSON (Unexpected token })' },
          { id: 'c', name: ' Read ', arguments: { path: 'hello.txt' } },
        ],
      },
      { text: ['done'] },
    ]);
    const result = await runAttempt(params);
    expect(result.kind).toBe('ok');
    expect(result.toolErrors).toBe(2);
    const results = persisted.filter((m) => m.role === 'toolResult') as Extract<Message, { role: 'toolResult' }>[];
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([['a', true], ['b', true], ['c', false]]);
    expect(results[0]!.content).toMatch(/Unknown tool "nope".*read/);
    expect(results[1]!.content).toBe('The call to read was not run: its arguments are not valid JSON (Unexpected token }).');
    expect(results[2]!.toolName).toBe('read');
  });

  it('a before_tool_call hook can block or rewrite a call; a throwing hook is not fatal', async () => {
    const seen: string[] = [];
    const { params, persisted } = setup(
      [
        { toolCalls: [{ id: 'a', name: 'write', arguments: { path: 'x.txt', content: 'x' } }, { id: 'b', name: 'read', arguments: { path: 'nope.txt' } }, { id: 'c', name: 'list', arguments: {} }] },
        { text: ['ok'] },
      ],
      {
        hooks: {
          before_tool_call: (info) => {
            if (info.toolName === 'write') return { block: true, reason: 'writes are not allowed' };
            if (info.toolName === 'read') return { params: { path: 'hello.txt' } };
            throw new Error('hook bug');
          },
          after_tool_call: (info) => void seen.push(`${info.toolName}:${info.isError}`),
        },
      },
    );
    await runAttempt(params);
    const results = persisted.filter((m) => m.role === 'toolResult') as Extract<Message, { role: 'toolResult' }>[];
    expect(results[0]).toMatchObject({ isError: true, content: 'writes are not allowed' });
    expect(results[1]).toMatchObject({ isError: false });
    expect(results[1]!.content).toContain('hello world');
    expect(results[2]).toMatchObject({ isError: false });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual(['write:true', 'read:false', 'list:false']);
  });

  it('a failed call ends the attempt with an error and still persists the partial message', async () => {
    const { params, persisted } = setup([{ text: ['partial'], error: new Error('boom') }]);
    const result = await runAttempt(params);
    expect(result.kind).toBe('error');
    expect((result.error as Error).message).toBe('boom');
    expect(persisted).toHaveLength(1);
    expect(persisted[0]).toMatchObject({ role: 'assistant', stopReason: 'error' });
  });

  it('stops a runaway tool loop', async () => {
    const turns: ScriptedTurn[] = Array.from({ length: 5 }, (_, i) => ({ toolCalls: [{ id: `t${i}`, name: 'list', arguments: {} }] }));
    const { params } = setup(turns, { maxToolRounds: 3 });
    const result = await runAttempt(params);
    expect(result.kind).toBe('error');
    expect((result.error as Error).message).toMatch(/3 rounds/);
  });
});

describe('buildContext', () => {
  it('leaves out failed assistant turns and notes that the earlier message got no reply', () => {
    const messages: Message[] = [
      { role: 'user', content: 'a', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'x', name: 'list', arguments: {} }], provider: 'p', model: 'm', api: 'anthropic', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: 'error', timestamp: 2 },
      { role: 'user', content: 'b', timestamp: 3 },
    ];
    const context = buildContext(messages);
    expect(context.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(context[1]).toMatchObject({ stopReason: 'stop', content: [{ type: 'text', text: '(no reply: the run failed)' }] });
  });
});
