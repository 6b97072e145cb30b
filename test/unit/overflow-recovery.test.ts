/**
 * Overflow recovery in one place (main/engine/run/overflow-recovery.ts, inventory §9): the steps (compact ≤ 3 per
 * run, then truncate once, then give up), and the outer loop's hand-off with the real session store in a temp
 * folder and the scripted stream writing the summaries. A compaction with nothing to summarise moves straight on
 * (no budget spent on no-op compactions); the truncation step records the shortened results in the transcript.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef } from '../../main/providers/types.js';
import { SessionStore } from '../../main/sessions/store.js';
import { createRecoverOverflow, NOTHING_TO_COMPACT, OverflowSteps, type OverflowContext } from '../../main/engine/run/overflow-recovery.js';
import { newRunCompaction } from '../../main/engine/attempt/run-compaction.js';
import { classifyError } from '../../main/engine/classify.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { createWorkspaceTools } from '../../main/tools/index.js';
import { scriptedStream } from '../support/scripted-stream.js';

const model: ModelDef = { provider: 'p', id: 'm', api: 'anthropic', contextWindow: 200_000, maxTokens: 1000, reasoning: false };
let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-recovery-')));
});

const prose = (label: string) => Array.from({ length: 60 }, (_, i) => `${label} sentence ${i} about the work.`).join(' ');

async function setup(turns: number) {
  const store = new SessionStore(join(dir, 'sessions'));
  const session = await store.resolve('main');
  const messages: Message[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: prose(`q${i}`), timestamp: i });
    messages.push({
      role: 'assistant',
      content: [{ type: 'text', text: prose(`a${i}`) }],
      provider: 'p', model: 'm', api: 'anthropic',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      stopReason: 'stop',
      timestamp: i,
    });
  }
  if (messages.length > 0) await store.append(session.sessionId, ...messages);
  else await store.append(session.sessionId, { role: 'user', content: 'hi', timestamp: 1 });
  const stream = scriptedStream(Array.from({ length: 10 }, (_, i) => ({ text: [`summary ${i + 1}`] })));
  const recover = createRecoverOverflow({ store, tools: createWorkspaceTools(), now: () => 1, streamFnFor: () => stream, idleTimeoutMs: () => 1000 });
  const events: AgentEvent[] = [];
  const run = newRunCompaction();
  const ctx = (_step: number, apiKey: string | undefined = 'k'): OverflowContext => ({
    runId: 'r', sessionKey: 'main', sessionId: session.sessionId, model, contextTokens: 200_000,
    error: classifyError(new Error('400 prompt is too long: 212345 tokens > 200000 maximum')),
    signal: new AbortController().signal,
    emitter: createRunEmitter('r', 'main', (e) => events.push(e)),
    systemPrompt: 'sys',
    compaction: run,
    ...(apiKey ? { apiKey } : {}),
  });
  return { store, session, stream, recover, run, ctx, events };
}

describe('OverflowSteps', () => {
  it('compacts three times, truncates once, then gives up', () => {
    const r = new OverflowSteps();
    const steps = [];
    for (let i = 0; i < 6; i++) {
      expect(r.canRecover).toBe(i < 4);
      steps.push(r.next());
    }
    expect(steps).toEqual(['compact', 'compact', 'compact', 'truncate', 'give_up', 'give_up']);
  });

  it('a compaction that could not make the context smaller does not spend the budget on more no-op compactions', () => {
    const r = new OverflowSteps();
    expect(r.next()).toBe('compact');
    r.nothingToCompact();
    expect([r.next(), r.canRecover, r.next()]).toEqual(['truncate', false, 'give_up']);
  });
});

describe('createRecoverOverflow', () => {
  it('compacts 3 times (each recorded in the transcript), then gives up (no tool result left to shorten)', async () => {
    const s = await setup(40);
    const steps = [];
    for (let i = 1; i <= 4; i++) steps.push(await s.recover(s.ctx(i)));
    expect(steps.map((r) => r.compacted)).toEqual([true, true, true, false]);
    expect(steps[0]!.tokensAfter!).toBeLessThan(steps[0]!.tokensBefore!);
    expect(steps[3]!.reason).toMatch(/still too large after compacting/);
    expect(s.run.compactions).toBe(3);
    expect(s.stream.requests).toHaveLength(3);
    const t = await s.store.loadTranscript(s.session.sessionId);
    expect(t.compactions.map((c) => c.record.reason)).toEqual(['overflow', 'overflow', 'overflow']);
    expect(t.messages).toHaveLength(80); // append-only: every message is still there
    expect((await s.store.loadContext(s.session.sessionId)).summary).toBe('summary 3');
    // Each compaction folded the previous summary in.
    expect(s.stream.requests[1]!.messages[0]!.content).toContain('<previous-summary>\nsummary 1\n</previous-summary>');
    const phases = s.events.filter((e) => e.stream === 'compaction').map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(['start', 'end', 'start', 'end', 'start', 'end']);
    expect(s.run.coordinator.pendingRetries).toBe(3); // each retry is resolved by the next attempt's first call
  });

  it('a fresh session too large for the window: nothing to compact, nothing to shorten → the clear error at once', async () => {
    const s = await setup(0);
    expect(await s.recover(s.ctx(1))).toEqual({ compacted: false, reason: NOTHING_TO_COMPACT });
    expect(s.stream.requests).toHaveLength(0);
    expect(s.run.compactions).toBe(0);
  });

  it('nothing left to summarise but a long tool result: the truncation step, then the error', async () => {
    const s = await setup(0);
    await s.store.append(
      s.session.sessionId,
      { role: 'assistant', content: [{ type: 'toolCall', id: 'c', name: 'read', arguments: {} }], provider: 'p', model: 'm', api: 'anthropic', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, stopReason: 'toolUse', timestamp: 2 },
      { role: 'toolResult', toolCallId: 'c', toolName: 'read', content: 'x'.repeat(20_000), isError: false, timestamp: 3 },
    );
    // 1: only the prompt being answered precedes the call, and it is never summarised: the result is shortened
    // instead — recorded in the transcript, the original kept; 2: out of steps.
    expect(await s.recover(s.ctx(1))).toEqual({ compacted: true });
    const t = await s.store.loadTranscript(s.session.sessionId);
    expect(t.shortenings).toHaveLength(1);
    expect(t.messages.at(-1)).toMatchObject({ content: 'x'.repeat(20_000) });
    const sent = (await s.store.loadContext(s.session.sessionId)).messages.at(-1) as { content: string };
    expect(sent.content.length).toBeLessThan(3_000);
    expect(sent.content).toMatch(/more characters truncated/);
    expect((await s.recover(s.ctx(2))).compacted).toBe(false);
    expect(s.run.compactions).toBe(0);
    expect(s.stream.requests).toHaveLength(0);
  });

  it('without the key of the failed attempt nothing is sent', async () => {
    const s = await setup(10);
    expect(await s.recover(s.ctx(1, ''))).toEqual({ compacted: false, reason: 'no key to write a summary with' });
    expect(s.stream.requests).toHaveLength(0);
  });
});
