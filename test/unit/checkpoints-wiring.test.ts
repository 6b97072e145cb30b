/**
 * X2 wiring: the tool lifecycle asks for a checkpoint only before a mutating tool runs (after its approval; never
 * for read-only tools; a failing gate never fails the call), the gate takes one snapshot per run and none for a
 * subagent's run or with checkpoints off, and the conversation-branch helpers (tables).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import { createCheckpointGate } from '../../main/checkpoints/gate.js';
import { CheckpointStore } from '../../main/checkpoints/store.js';
import { HookRunner } from '../../main/engine/attempt/hook-runner.js';
import { runAttempt } from '../../main/engine/attempt/attempt.js';
import type { CheckpointGate } from '../../main/engine/attempt/checkpoint-step.js';
import { attemptParams } from '../support/attempt-params.js';
import { scriptedStream } from '../support/scripted-stream.js';
import { runToolCall } from '../../main/engine/attempt/tool-lifecycle.js';
import type { Message } from '../../main/engine/messages.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { findTurnMessage, linesBeforeMessage } from '../../main/sessions/branch.js';
import { createWorkspaceTools } from '../../main/tools/index.js';
import type { Tool } from '../../main/tools/types.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('cpw');

function harness(gate: HookRunner['checkpoint'], approve = true) {
  const ws = tmp('ws');
  writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  const events: AgentEvent[] = [];
  const hooks = new HookRunner();
  hooks.checkpoint = gate;
  hooks.approvals = async () => (approve ? { allow: true } : { allow: false, reason: 'denied by the test' });
  const custom: Tool = { name: 'mcp__x__do', description: '', parameters: {}, execute: async () => ({ content: 'did it' }) };
  const call = (name: string, args: Record<string, unknown>, id = `c-${name}`) =>
    runToolCall(
      { type: 'toolCall', id, name, arguments: args },
      {
        runId: 'run-1',
        sessionKey: 'main',
        tools: [...createWorkspaceTools(), custom],
        workspace: ws,
        signal: new AbortController().signal,
        emitter: createRunEmitter('run-1', 'main', (e) => events.push(e)),
        hooks,
        now: Date.now,
      },
    );
  return { ws, events, call };
}

describe('the checkpoint step of the tool lifecycle', () => {
  it.each([
    ['read', { path: 'a.txt' }, false],
    ['list', {}, false],
    ['grep', { pattern: 'a' }, false],
    ['find', { pattern: '*' }, false],
    ['write', { path: 'b.txt', content: 'b' }, true],
    ['edit', { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] }, true],
    ['exec', { command: 'true' }, true],
    ['mcp__x__do', {}, true], // a tool that does not say it is read-only counts as mutating
  ])('%s → checkpoint asked: %s', async (name, args, asked) => {
    const seen: string[] = [];
    const h = harness(async (info) => void seen.push(info.toolName));
    await h.call(name, args);
    expect(seen).toEqual(asked ? [name] : []);
  });

  it('a denied call takes no checkpoint; a failing gate is reported and the tool still runs', async () => {
    const seen: string[] = [];
    const denied = harness(async (info) => void seen.push(info.toolName), false);
    const r = await denied.call('write', { path: 'b.txt', content: 'b' });
    expect(r.isError).toBe(true);
    expect(seen).toEqual([]);
    const failing = harness(async () => {
      throw new Error('disk full');
    });
    const ok = await failing.call('write', { path: 'b.txt', content: 'b' });
    expect(ok.isError).toBe(false);
    expect(failing.events.filter((e) => e.stream === 'checkpoint').map((e) => e.data)).toEqual([{ phase: 'failed', error: 'disk full', toolName: 'write' }]);
  });
});

describe('the attempt tells the gate when the run waits for its model', () => {
  it('before each model call, after the tools of the call before have run (a capture put off until then may start)', async () => {
    const ws = tmp('ws');
    const seen: string[] = [];
    const stream = scriptedStream([
      { toolCalls: [{ id: 't1', name: 'write', arguments: { path: 'b.txt', content: 'b' } }] },
      { text: ['Done.'] },
    ]);
    const gate: CheckpointGate = async (info) => void seen.push(`gate ${info.toolName} (model calls so far: ${stream.requests.length})`);
    gate.waiting = (runId) => void seen.push(`waiting ${runId} (model calls so far: ${stream.requests.length})`);
    const hooks = new HookRunner();
    hooks.checkpoint = gate;
    hooks.approvals = async () => ({ allow: true });
    const { params } = attemptParams({ model: { provider: 't', id: 'm', api: 'anthropic', contextWindow: 100_000, maxTokens: 1000, reasoning: false }, workspace: ws, streamFn: stream, messages: [{ role: 'user', content: 'hi', timestamp: 1 }], now: Date.now });
    expect((await runAttempt({ ...params, hooks })).kind).toBe('ok');
    expect(seen).toEqual(['waiting run-1 (model calls so far: 0)', 'gate write (model calls so far: 1)', 'waiting run-1 (model calls so far: 1)']);
  });
});

describe('createCheckpointGate', () => {
  const info = (runId: string, emitted: unknown[]) => ({ runId, sessionKey: 's', toolName: 'write', emit: (d: unknown) => void emitted.push(d) });

  it('one snapshot per run, labelled with the first line of its message; none for subagent runs or when off', async () => {
    const root = tmp('root');
    writeFileSync(path.join(root, 'x.txt'), 'x');
    const store = new CheckpointStore(tmp('home'), { onNotice: () => {} });
    const runs: Record<string, { sessionId: string; message: string; startedAt: number; parent?: unknown; endedAt?: number }> = {
      r1: { sessionId: 'id1', message: '\n  Fix the build\nthen test', startedAt: 1 },
      child: { sessionId: 'id2', message: 'sub task', startedAt: 2, parent: { runId: 'r1' } },
    };
    let enabled = true;
    const gate = createCheckpointGate({ store, run: (id) => runs[id], root: () => root, enabled: () => enabled });
    const emitted: unknown[] = [];
    await Promise.all([gate(info('r1', emitted)), gate(info('r1', emitted))]);
    await gate(info('r1', emitted));
    await gate(info('child', emitted));
    expect(store.list('s').map((r) => [r.label, r.runId, r.sessionId])).toEqual([['Fix the build', 'r1', 'id1']]);
    expect(emitted).toEqual([expect.objectContaining({ phase: 'created', files: 1, label: 'Fix the build' })]);
    enabled = false;
    runs.r2 = { sessionId: 'id1', message: 'again', startedAt: 3 };
    await gate(info('r2', emitted));
    expect(store.list('s')).toHaveLength(1);
  });

  it.each([
    ['one line', 'one line'],
    ['\n\n  first\nsecond', 'first'],
    ['x'.repeat(200), `${'x'.repeat(119)}…`],
    ['', ''],
  ])('a run whose message is %j: its checkpoint is labelled %j', async (message, label) => {
    const root = tmp('root');
    writeFileSync(path.join(root, 'x.txt'), 'x');
    const store = new CheckpointStore(tmp('home'), { onNotice: () => {} });
    const gate = createCheckpointGate({ store, run: () => ({ sessionId: 'id1', message, startedAt: 1 }), root: () => root, enabled: () => true });
    await gate(info('r1', []));
    expect(store.list('s').map((r) => r.label)).toEqual([label]);
  });
});

describe('conversation branches', () => {
  const msg = (role: 'user' | 'toolResult', content: string, timestamp: number): string =>
    JSON.stringify({ type: 'message', message: role === 'user' ? { role, content, timestamp } : { role, toolCallId: 't', toolName: 'read', content, isError: false, timestamp } });
  const file = [
    JSON.stringify({ type: 'session', version: 1, id: 'old', createdAt: 0 }),
    msg('user', 'one', 1),
    JSON.stringify({ type: 'compaction', version: 1, summary: 's', keptMessages: 1, tokensBefore: 10, tokensAfter: 5 }),
    msg('toolResult', 'r', 2),
    msg('user', 'two', 3),
    '{"type":"mes', // torn
  ].join('\n');

  it.each([
    [0, []],
    [1, ['message one', 'compaction']],
    [2, ['message one', 'compaction', 'message r']],
    [9, ['message one', 'compaction', 'message r', 'message two']],
  ])('linesBeforeMessage(keep %i)', (keep, kinds) => {
    const lines = linesBeforeMessage(file, keep).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: { content: string } });
    expect(lines.map((l) => (l.type === 'message' ? `message ${l.message!.content}` : l.type))).toEqual(kinds);
  });

  const messages: Message[] = [
    { role: 'user', content: 'same', timestamp: 10 },
    { role: 'user', content: 'same', timestamp: 20 },
    { role: 'user', content: 'other', timestamp: 30 },
  ];
  it.each([
    [{ message: 'same', startedAt: 15 }, 1],
    [{ message: 'same', startedAt: 0 }, 0],
    [{ message: 'other', startedAt: 0 }, 2],
    [{ message: 'gone', startedAt: 0 }, -1],
    [{ startedAt: 25 }, 2],
  ])('findTurnMessage(%j) = %i', (turn, at) => expect(findTurnMessage(messages, turn)).toBe(at));
});
