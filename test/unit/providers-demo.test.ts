import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolCallBlock } from '../../main/engine/messages.js';
import { assistantText, toolCallsOf } from '../../main/engine/messages.js';
import { createDemoStream, DEMO_MODEL, demoChunkDelayFromEnv } from '../../main/providers/demo.js';
import { parseListing, pickRelevantFile } from '../../main/providers/demo-script.js';
import type { ProviderEvent, StreamRequest } from '../../main/providers/types.js';
import { createListTool } from '../../main/tools/list.js';
import { createReadTool } from '../../main/tools/read.js';
import type { Tool } from '../../main/tools/types.js';

const tools: Tool[] = [createListTool(), createReadTool()];
const specs = tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
const stream = createDemoStream({ chunkDelayMs: 0 });

function request(messages: Message[], signal = new AbortController().signal): StreamRequest {
  return { model: DEMO_MODEL, apiKey: '', systemPrompt: 'You are AgentDesk.', messages, tools: specs, thinking: 'off', signal, idleTimeoutMs: 5_000 };
}

async function turn(messages: Message[]): Promise<{ events: ProviderEvent[]; message: AssistantMessage }> {
  const events: ProviderEvent[] = [];
  for await (const e of stream(request(messages))) events.push(e);
  const last = events.at(-1)!;
  if (last.type !== 'done') throw new Error(`expected done, got ${JSON.stringify(last)}`);
  return { events, message: last.message };
}

async function execute(call: ToolCallBlock, workspace: string): Promise<Message> {
  const tool = tools.find((t) => t.name === call.name)!;
  try {
    const out = await tool.execute(call.arguments, { workspace, signal: new AbortController().signal });
    return { role: 'toolResult', toolCallId: call.id, toolName: call.name, content: out.content, isError: false, timestamp: 0 };
  } catch (e) {
    return { role: 'toolResult', toolCallId: call.id, toolName: call.name, content: (e as Error).message, isError: true, timestamp: 0 };
  }
}

describe('demo model: scripted tool loop through the real tools', () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'demo-ws-')));
    await writeFile(path.join(workspace, 'README.md'), '# Sample project\n\nIt counts sheep.\nThird line.\nFourth line.\n');
    await writeFile(path.join(workspace, 'package.json'), '{"name":"sample"}');
    await mkdir(path.join(workspace, 'src'));
  });
  afterAll(() => rm(workspace, { recursive: true, force: true }));

  it('lists, reads the README, then summarises — feeding results back each turn', async () => {
    const history: Message[] = [{ role: 'user', content: 'What is in this folder?', timestamp: 0 }];

    // Turn A: thinking, short text, list {path:'.'}
    const a = await turn(history);
    expect(a.message.stopReason).toBe('toolUse');
    const thinkingA = a.message.content.find((b) => b.type === 'thinking');
    expect(thinkingA).toMatchObject({ thinking: expect.stringContaining('What is in this folder?') });
    expect(assistantText(a.message).length).toBeGreaterThan(0);
    expect(toolCallsOf(a.message)).toEqual([{ type: 'toolCall', id: expect.any(String), name: 'list', arguments: { path: '.' } }]);
    expect(a.events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(1); // streamed in chunks
    expect(a.events.map((e) => e.type)).toContain('toolcall_end');
    history.push(a.message, await execute(toolCallsOf(a.message)[0]!, workspace));

    // Turn B: read the README
    const b = await turn(history);
    expect(b.message.stopReason).toBe('toolUse');
    expect(toolCallsOf(b.message)).toEqual([{ type: 'toolCall', id: expect.any(String), name: 'read', arguments: { path: 'README.md' } }]);
    expect(toolCallsOf(b.message)[0]!.id).not.toBe(toolCallsOf(a.message)[0]!.id);
    history.push(b.message, await execute(toolCallsOf(b.message)[0]!, workspace));

    // Turn C: the summary
    const c = await turn(history);
    expect(c.message.stopReason).toBe('stop');
    expect(toolCallsOf(c.message)).toEqual([]);
    const text = assistantText(c.message);
    expect(text.startsWith('[Demo model] ')).toBe(true);
    expect(text).toContain('3 entries');
    expect(text).toContain('README.md');
    expect(text).toContain('src/');
    expect(text).toContain('# Sample project');
    expect(text).toContain('It counts sheep.');
    expect(text).not.toContain('Fourth line');
    expect(text).toMatch(/offline demo/);
    expect(text).toMatch(/API key/);
    // The streamed deltas add up to exactly the final text (monotonic assembly).
    const streamed = c.events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('');
    expect(streamed).toBe(text);
    // Usage is plausible: the prompt grew with the tool results.
    expect(c.message.usage.input).toBeGreaterThan(a.message.usage.input);
    expect(c.message.usage.output).toBe(Math.ceil((text.length + (c.message.content.find((x) => x.type === 'thinking') as { thinking: string }).thinking.length) / 4));
    expect(c.message.usage.total).toBe(c.message.usage.input + c.message.usage.output);
  });

  it('explains a failed tool instead of pretending', async () => {
    const history: Message[] = [{ role: 'user', content: 'look around', timestamp: 0 }];
    const a = await turn(history);
    const call = toolCallsOf(a.message)[0]!;
    history.push(a.message, { role: 'toolResult', toolCallId: call.id, toolName: 'list', content: 'list: permission denied', isError: true, timestamp: 0 });
    const c = await turn(history);
    expect(c.message.stopReason).toBe('stop');
    expect(assistantText(c.message)).toMatch(/^\[Demo model\] .*error: list: permission denied/);
  });

  it('explains a failed read', async () => {
    const history: Message[] = [{ role: 'user', content: 'look around', timestamp: 0 }];
    const a = await turn(history);
    history.push(a.message, { role: 'toolResult', toolCallId: toolCallsOf(a.message)[0]!.id, toolName: 'list', content: 'notes.txt  (1 KB)', isError: false, timestamp: 0 });
    const b = await turn(history);
    const read = toolCallsOf(b.message)[0]!;
    expect(read.arguments).toEqual({ path: 'notes.txt' });
    history.push(b.message, { role: 'toolResult', toolCallId: read.id, toolName: 'read', content: 'read: "notes.txt" looks like a binary file', isError: true, timestamp: 0 });
    const c = await turn(history);
    expect(assistantText(c.message)).toMatch(/^\[Demo model\] .*I tried to read notes\.txt, but the read tool reported an error: read: "notes\.txt" looks like a binary/s);
  });

  it('skips the read when nothing is worth reading', async () => {
    const history: Message[] = [{ role: 'user', content: 'hi', timestamp: 0 }];
    const a = await turn(history);
    history.push(a.message, { role: 'toolResult', toolCallId: toolCallsOf(a.message)[0]!.id, toolName: 'list', content: 'bin/\nlogo.png  (2 KB)', isError: false, timestamp: 0 });
    const c = await turn(history);
    expect(c.message.stopReason).toBe('stop');
    expect(assistantText(c.message)).toMatch(/^\[Demo model\] .*2 entries: bin\/, logo\.png/);
  });

  it('starts over for a new user message after a finished loop', async () => {
    const history: Message[] = [
      { role: 'user', content: 'first', timestamp: 0 },
      { role: 'toolResult', toolCallId: 'x', toolName: 'list', content: 'a.md', isError: false, timestamp: 0 },
      { role: 'user', content: 'second', timestamp: 0 },
    ];
    const a = await turn(history);
    expect(toolCallsOf(a.message)[0]!.name).toBe('list');
  });

  it('ends with stopReason aborted when the signal fires mid-stream', async () => {
    const ac = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const e of stream(request([{ role: 'user', content: 'hi', timestamp: 0 }], ac.signal))) {
      events.push(e);
      if (e.type === 'thinking_delta') ac.abort();
    }
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: 'error', message: { stopReason: 'aborted' } });
    expect(((last as { error: Error }).error).name).toBe('AbortError');
    expect(events.filter((e) => e.type === 'thinking_delta')).toHaveLength(1);
  });

  it('streams with a real delay between chunks by default', async () => {
    const slow = createDemoStream({ chunkDelayMs: 5 });
    const started = Date.now();
    let deltas = 0;
    for await (const e of slow(request([{ role: 'user', content: 'hi', timestamp: 0 }]))) if (e.type === 'text_delta') deltas++;
    expect(deltas).toBeGreaterThan(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(deltas * 4);
  });
});

describe('parseListing / pickRelevantFile', () => {
  it('parses the list tool output format', () => {
    expect(parseListing('docs/\nREADME.md  (1.2 KB)\nlink -> src/a.ts  (3 B)\nout/ -> build/\n[… 3 more entries not shown (10 total)]')).toEqual([
      { name: 'docs', isDir: true },
      { name: 'README.md', isDir: false },
      { name: 'link', isDir: false },
      { name: 'out', isDir: true },
    ]);
    expect(parseListing('[empty directory]')).toEqual([]);
  });

  const f = (...names: string[]) => names.map((n) => (n.endsWith('/') ? { name: n.slice(0, -1), isDir: true } : { name: n, isDir: false }));
  it.each([
    [f('a.txt', 'notes.md', 'package.json', 'AGENTS.md', 'readme.rst', 'README.md'), 'README.md'],
    [f('a.txt', 'readme.rst'), 'readme.rst'],
    [f('a.txt', 'notes.md', 'package.json', 'AGENTS.md'), 'AGENTS.md'],
    [f('a.txt', 'notes.md', 'package.json'), 'package.json'],
    [f('b.txt', 'notes.md', 'z.md'), 'notes.md'],
    [f('b.txt', 'a.txt'), 'b.txt'],
    [f('README.md/', 'logo.png'), undefined],
    [[], undefined],
  ])('%j → %s', (entries, expected) => expect(pickRelevantFile(entries)).toBe(expected));
});

describe('AGENTDESK_DEMO_CHUNK_MS', () => {
  it('a whole number of milliseconds sets the pause; anything else leaves the default', () => {
    expect(demoChunkDelayFromEnv({ AGENTDESK_DEMO_CHUNK_MS: '0' })).toBe(0);
    expect(demoChunkDelayFromEnv({ AGENTDESK_DEMO_CHUNK_MS: '25' })).toBe(25);
    for (const bad of ['', ' 5', '-1', '1.5', '1e3', 'fast', '99999999']) expect(demoChunkDelayFromEnv({ AGENTDESK_DEMO_CHUNK_MS: bad }), bad).toBeUndefined();
    expect(demoChunkDelayFromEnv({})).toBeUndefined();
  });
});
