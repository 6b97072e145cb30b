/**
 * E18 at the end of a run (the seed's wait-for-compaction-retry): a run stopped while a compaction summary is being
 * written waits for that compaction to settle before it ends — nothing is written to the session after the run's
 * lifecycle end. The scripted stream stands in for the provider (its summary call finishes 400 ms after the abort — longer than the 250 ms the run gives its loop to settle —
 * as a real stream's teardown does); the store, auth pool and timers are the real ones.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../preload/contract.js';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef, ProviderEvent, StreamRequest } from '../../main/providers/types.js';
import { configSchema } from '../../main/engine/config/schema.js';
import { SessionStore } from '../../main/sessions/store.js';
import { AuthPool } from '../../main/auth/pool.js';
import { AuthStateStore } from '../../main/auth/state-store.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { executeRun, nodeTimers } from '../../main/engine/run/agent-run.js';
import { SUMMARY_SYSTEM_PROMPT } from '../../main/engine/attempt/summary.js';
import { emptyUsage } from '../../main/engine/messages.js';

const model: ModelDef = { provider: 'local', id: 'm', api: 'openai-chat', contextWindow: 100_000, maxTokens: 1000, reasoning: false };
const prose = (label: string) => Array.from({ length: 60 }, (_, i) => `${label} sentence ${i} about the project.`).join(' ');

describe('a run stopped during a compaction (E18)', () => {
  it('waits for the compaction in flight to settle before it ends', async () => {
    const home = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-ccwait-')));
    const config = configSchema.parse({ providers: { local: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', models: [{ id: 'm' }] } } });
    const store = new SessionStore(join(home, 'sessions'));
    const session = await store.resolve('main');
    const history: Message[] = [];
    for (let i = 0; i < 30; i++) {
      history.push({ role: 'user', content: prose(`q${i}`), timestamp: i });
      history.push({ role: 'assistant', content: [{ type: 'text', text: prose(`a${i}`) }], provider: 'local', model: 'm', api: 'openai-chat', usage: emptyUsage(), stopReason: 'stop', timestamp: i });
    }
    await store.append(session.sessionId, ...history);
    const controller = new AbortController();
    let summaryEnded = 0;
    // A summary call that notices the abort and finishes 400 ms later (a stream tearing down).
    async function* stream(req: StreamRequest): AsyncGenerator<ProviderEvent> {
      if (req.systemPrompt !== SUMMARY_SYSTEM_PROMPT) throw new Error('no model turn is expected: the run is stopped during the compaction');
      controller.abort(Object.assign(new Error('The run was stopped.'), { name: 'AbortError' }));
      await new Promise((r) => setTimeout(r, 400));
      summaryEnded = Date.now();
      const message = { role: 'assistant' as const, content: [], provider: 'local', model: 'm', api: 'openai-chat', usage: emptyUsage(), stopReason: 'aborted' as const, timestamp: 1 };
      yield { type: 'error', error: req.signal.reason, message };
    }
    const events: AgentEvent[] = [];
    const result = await executeRun(
      { runId: 'r', sessionKey: 'main', sessionId: session.sessionId, message: 'go on', model, thinking: 'off', timeoutMs: 30_000 },
      {
        store,
        tools: [],
        workspace: home,
        hooks: {},
        now: Date.now,
        timers: nodeTimers,
        random: Math.random,
        auth: new AuthPool({ config, env: {}, openSecrets: () => Promise.reject(new Error('none')), state: new AuthStateStore(join(home, 'auth-state.json')), now: Date.now }),
        streamFnFor: () => stream,
        idleTimeoutMs: () => 10_000,
        contextTokens: () => 20_000, // the history is over the budget: a preemptive compaction starts first
      },
      createRunEmitter('r', 'main', (e) => events.push(e)),
      controller.signal,
    );
    const endedAt = events.find((e) => e.stream === 'lifecycle' && (e.data as { phase: string }).phase !== 'start')!.ts;
    expect(result.status).toBe('error');
    expect(summaryEnded).toBeGreaterThan(0);
    expect(endedAt).toBeGreaterThanOrEqual(summaryEnded); // the run ended after the compaction settled
    const phases = events.filter((e) => e.stream === 'compaction').map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(['start', 'end']);
    expect(events.findIndex((e) => e.stream === 'compaction' && (e.data as { phase: string }).phase === 'end')).toBeLessThan(events.length - 1);
    expect((await store.loadTranscript(session.sessionId)).compactions).toHaveLength(0); // stopped: nothing recorded
  });
});
