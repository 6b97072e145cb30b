/**
 * E10 inside one attempt, with the in-memory scripted StreamFn standing in for a provider (the real SDKs and fake
 * servers are exercised in test/integration/compaction-cli.test.ts): preemptive compaction before a send, the
 * overflow path, the truncation route, and tool results cut to the run's window.
 */
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import type { AssistantMessage, Message, ToolResultMessage } from '../../main/engine/messages.js';
import type { ModelDef, StreamRequest } from '../../main/providers/types.js';
import { runAttempt, type AttemptParams } from '../../main/engine/attempt/attempt.js';
import type { CompactionRecordInput } from '../../main/engine/attempt/context-fit.js';
import { contextBudget, estimateRequestTokens } from '../../main/engine/attempt/context-budget.js';
import { SUMMARY_PREFIX, SUMMARY_SYSTEM_PROMPT } from '../../main/engine/attempt/summary.js';
import { toolResultCaps } from '../../main/engine/attempt/tool-result-truncation.js';
import { scriptedStream, type ScriptedTurn } from '../support/scripted-stream.js';
import { attemptParams } from '../support/attempt-params.js';

const model: ModelDef = { provider: 'test', id: 'm', api: 'anthropic', contextWindow: 200_000, maxTokens: 1000, reasoning: false };
const WINDOW = 20_000;

let workspace: string;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-compact-')));
});

const prose = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed} sentence number ${i} talks about the project.`).join(' ');
const user = (content: string, t = 1): Message => ({ role: 'user', content, timestamp: t });
const reply = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  provider: 'test',
  model: 'm',
  api: 'anthropic',
  usage: { input: 0, output: 10, cacheRead: 0, cacheWrite: 0, total: 10 },
  stopReason: 'stop',
  timestamp: 1,
});
/** A long earlier conversation: `turns` user/assistant pairs of ~1 000 tokens each. */
const history = (turns: number): Message[] => Array.from({ length: turns }, (_, i) => [user(prose(40, `q${i}`)), reply(prose(40, `a${i}`))]).flat();

const overflowError = () => Object.assign(new Error('400 prompt is too long: 212345 tokens > 200000 maximum'), { status: 400 });

/**
 * Summary requests get `summary 1`, `summary 2`… (or the scripted `summaries`); every other request plays the next
 * scripted turn. `requests` holds all of them in order, `main` only the non-summary ones.
 */
function routedStream(turns: ScriptedTurn[], summaries: ScriptedTurn[] = []) {
  let n = 0;
  const summary = scriptedStream(summaries);
  const main = scriptedStream(turns);
  const requests: StreamRequest[] = [];
  const fn = (req: StreamRequest) => {
    requests.push(req);
    if (req.systemPrompt !== SUMMARY_SYSTEM_PROMPT) return main(req);
    if (summaries.length === 0) summaries.push({ text: [`summary ${++n}`] });
    return summary(req);
  };
  return Object.assign(fn, { requests, main: main.requests, summaries: summary.requests });
}

function setup(turns: ScriptedTurn[], messages: Message[], overrides: Partial<AttemptParams> = {}, summaries: ScriptedTurn[] = []) {
  const records: CompactionRecordInput[] = [];
  const stream = routedStream(turns, summaries);
  const base = attemptParams({ model, workspace, streamFn: stream, messages, now: () => 5 });
  const params: AttemptParams = {
    ...base.params,
    persistCompaction: async (r) => void records.push(r),
    windowTokens: WINDOW,
    ...overrides,
  };
  return { ...base, params, records, stream };
}

const compactionEvents = (events: AgentEvent[]) => events.filter((e) => e.stream === 'compaction').map((e) => e.data as Record<string, unknown>);

describe('preemptive compaction (E10)', () => {
  it('a context over budget − reserve is summarised by the model before the send; recent turns stay verbatim', async () => {
    const messages = [...history(20), user('What next?')];
    const { params, events, records, stream } = setup([{ text: ['Next: tests.'] }], messages);
    const result = await runAttempt(params);
    expect(result.kind).toBe('ok');
    expect(result.parts.filter((x) => x.kind !== 'tool').map((x) => x.text)).toEqual(['Next: tests.']);
    expect(result.compactions).toBe(1);
    // The summary came first, with no tools, of the older turns only — in parts that each fit half the window,
    // each folding in the summary so far.
    expect(stream.requests[0]!.systemPrompt).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(stream.summaries.length).toBeGreaterThan(1);
    for (const [i, r] of stream.summaries.entries()) {
      expect(r.tools).toEqual([]);
      expect(estimateRequestTokens(r.systemPrompt, r.messages)).toBeLessThanOrEqual(WINDOW / 2);
      if (i > 0) expect(r.messages[0]!.content).toContain(`<previous-summary>\nsummary ${i}\n</previous-summary>`);
    }
    const summaryInput = stream.summaries.map((r) => r.messages[0]!.content).join('\n');
    expect(summaryInput).toContain('q0 sentence');
    expect(summaryInput).not.toContain('What next?');
    // The real send: the last summary as context, then the kept tail ending with the prompt, inside the budget.
    const last = `summary ${stream.summaries.length}`;
    expect(stream.main).toHaveLength(1);
    const sent = stream.main[0]!.messages;
    expect(sent[0]).toMatchObject({ role: 'user' });
    expect(sent[0]!.content).toContain(SUMMARY_PREFIX);
    expect(sent[0]!.content).toContain(last);
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'What next?' });
    expect(sent.slice(1)).toEqual(messages.slice(messages.length - (sent.length - 1)));
    expect(estimateRequestTokens('sys', sent, stream.main[0]!.tools)).toBeLessThanOrEqual(contextBudget(WINDOW).budget);
    // Recorded once, with the count of messages kept, and reported as start/end events.
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ summary: last, keptMessages: sent.length - 1, reason: 'preemptive' });
    const ce = compactionEvents(events);
    expect(ce.map((d) => d.phase)).toEqual(['start', 'end']);
    expect(ce[1]!.tokensBefore as number).toBeGreaterThan(contextBudget(WINDOW).budget);
    expect(ce[1]!.tokensAfter as number).toBeLessThan(ce[1]!.tokensBefore as number);
  });

  it('a context that fits is sent as it is', async () => {
    const { params, stream, records } = setup([{ text: ['ok'] }], [...history(2), user('hi')]);
    await runAttempt(params);
    expect(stream.requests).toHaveLength(1);
    expect(records).toHaveLength(0);
  });

  it('a summary that would not make the context smaller is not recorded: the history stays, the end event says why', async () => {
    const huge = prose(4000, 'verbose summary'); // far larger than what it summarises
    const { params, events, records } = setup([{ text: ['answer'] }], [...history(20), user('go')], {}, [{ text: [huge] }, { text: [huge] }, { text: [huge] }, { text: [huge] }]);
    const result = await runAttempt(params);
    expect(result.compactions).toBe(0);
    expect(records).toHaveLength(0);
    const end = compactionEvents(events).find((d) => d.phase === 'end')!;
    expect(end.error).toMatch(/would not make the conversation smaller/);
    expect(end.tokensAfter).toBe(end.tokensBefore);
  });

  it('a failed summary is reported and the send still goes ahead', async () => {
    const { params, events, stream } = setup([{ text: ['answer'] }], [...history(20), user('go')], {}, [{ error: new Error('500 Internal server error') }]);
    const result = await runAttempt(params);
    expect(result.kind).toBe('ok');
    expect(result.compactions).toBe(0);
    expect(compactionEvents(events)[1]).toMatchObject({ phase: 'end', error: expect.any(String) });
    expect(stream.main).toHaveLength(1);
  });

  it('the truncate route, as the seed: the stored results are shortened (a record under the write lock) and the send is skipped', async () => {
    const out = 'file a/b.ts: 3 matches\n'.repeat(478); // ~11 000 chars each: under the per-result cap, too many together
    const messages: Message[] = [user('grep everything')];
    for (let i = 0; i < 5; i++) {
      messages.push({ ...reply(''), content: [{ type: 'toolCall', id: `g${i}`, name: 'grep', arguments: { pattern: `p${i}` } }], stopReason: 'toolUse' });
      messages.push({ role: 'toolResult', toolCallId: `g${i}`, toolName: 'grep', content: out, isError: false, timestamp: 1 });
    }
    messages.push(user('and now?'));
    const planned: { toolCallId: string; content: string }[][] = [];
    const stored = setup([{ text: ['never sent'] }], messages, { shortenToolResults: async (plan) => (planned.push(plan(messages)), planned[0]!.length) });
    const restart = await runAttempt(stored.params);
    expect(restart.kind).toBe('restart');
    expect(stored.stream.requests).toHaveLength(0);
    expect(planned[0]!.length).toBeGreaterThan(0);
    expect(planned[0]!.every((r) => r.content.length < out.length && /more characters truncated/.test(r.content))).toBe(true);
    expect(stored.records).toHaveLength(0); // no summary needed
    // Where nothing stored can be shortened (no store), the view is shortened and sent at once.
    const view = setup([{ text: ['done'] }], messages);
    expect((await runAttempt(view.params)).kind).toBe('ok');
    expect(estimateRequestTokens('sys', view.stream.requests[0]!.messages, view.stream.requests[0]!.tools)).toBeLessThanOrEqual(contextBudget(WINDOW).budget);
  });

  it('oversized tool results in the history are cut to the caps of the window in what is sent', async () => {
    const big = 'line of tool output\n'.repeat(3_000); // 60 000 chars, larger than the 16 000 cap
    const messages: Message[] = [
      user('read it'),
      { ...reply(''), content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse' },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: big, isError: false, timestamp: 1 },
      { ...reply(''), content: [{ type: 'toolCall', id: 'c2', name: 'read', arguments: { path: 'b' } }], stopReason: 'toolUse' },
      { role: 'toolResult', toolCallId: 'c2', toolName: 'read', content: big, isError: false, timestamp: 1 },
      user('and now?'),
    ];
    const { params, stream, records } = setup([{ text: ['done'] }], messages);
    const result = await runAttempt(params);
    expect(result.kind).toBe('ok');
    expect(records).toHaveLength(0); // no summary needed
    expect(stream.requests).toHaveLength(1);
    const sent = stream.requests[0]!.messages.filter((m): m is ToolResultMessage => m.role === 'toolResult');
    expect(sent.every((m) => m.content.length < big.length)).toBe(true);
    expect(sent[0]!.content).toMatch(/more characters truncated/);
    expect(estimateRequestTokens('sys', stream.requests[0]!.messages, stream.requests[0]!.tools)).toBeLessThanOrEqual(contextBudget(WINDOW).budget);
  });
});

describe('overflow errors', () => {
  it('an overflow ends the attempt with the error (the outer loop hands it to overflow-recovery.ts)', async () => {
    const { params, persisted } = setup([{ error: overflowError() }], [...history(6), user('continue')], { windowTokens: 200_000 });
    const result = await runAttempt(params);
    expect(result.kind).toBe('error');
    expect((result.error as Error).message).toMatch(/prompt is too long/);
    expect(persisted).toHaveLength(1);
    expect(persisted[0]).toMatchObject({ stopReason: 'error' });
  });

});

describe('tool results sized to the window (T4)', () => {
  it('a tool result is cut to the per-result cap of the run and says so', async () => {
    await writeFile(join(workspace, 'big.txt'), 'a line in a big file\n'.repeat(10_000));
    const { params, persisted } = setup(
      [{ toolCalls: [{ id: 't1', name: 'read', arguments: { path: 'big.txt' } }] }, { text: ['read it'] }],
      [user('read big.txt')],
    );
    await runAttempt(params);
    const result = persisted.find((m): m is ToolResultMessage => m.role === 'toolResult')!;
    const cap = toolResultCaps(WINDOW).perResultChars;
    expect(result.content.length).toBeLessThanOrEqual(cap + 200);
    expect(result.content.length).toBeGreaterThan(cap / 2);
    expect(result.content).toMatch(/truncated/);
  });
});
