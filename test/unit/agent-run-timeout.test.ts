/**
 * Item 7: the run timeout ends the run within 1 s of its deadline whatever it is doing — here a before_tool_call
 * hook that never settles and ignores the signal, and a tool that never returns. The scripted stream stands in
 * for the provider; the store, auth pool and timers are the real ones.
 */
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelDef } from '../../main/providers/types.js';
import { configSchema } from '../../main/engine/config/schema.js';
import { SessionStore } from '../../main/sessions/store.js';
import { AuthPool } from '../../main/auth/pool.js';
import { AuthStateStore } from '../../main/auth/state-store.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { executeRun, nodeTimers } from '../../main/engine/run/agent-run.js';
import type { EngineHooks } from '../../main/engine/attempt/hooks.js';
import type { Tool } from '../../main/tools/types.js';
import { scriptedStream } from '../support/scripted-stream.js';

const model: ModelDef = { provider: 'local', id: 'm', api: 'openai-chat', contextWindow: 100_000, maxTokens: 1000, reasoning: false };

async function timedRun(hooks: EngineHooks, tools: Tool[]) {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'agentdesk-timeout-')));
  const config = configSchema.parse({ providers: { local: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', models: [{ id: 'm' }] } } });
  const store = new SessionStore(join(home, 'sessions'));
  const session = await store.resolve('main');
  const stream = scriptedStream([{ toolCalls: [{ id: 't1', name: 'stuck', arguments: {} }] }]);
  const started = Date.now();
  const result = await executeRun(
    { runId: 'r', sessionKey: 'main', sessionId: session.sessionId, message: 'go', model, thinking: 'off', timeoutMs: 300 },
    {
      store,
      tools,
      workspace: home,
      hooks,
      now: Date.now,
      timers: nodeTimers,
      random: Math.random,
      auth: new AuthPool({ config, env: {}, openSecrets: () => Promise.reject(new Error('none')), state: new AuthStateStore(join(home, 'auth-state.json')), now: Date.now }),
      streamFnFor: () => stream,
      idleTimeoutMs: () => 10_000,
      contextTokens: (m) => m.contextWindow,
    },
    createRunEmitter('r', 'main', () => undefined),
    new AbortController().signal,
  );
  return { result, elapsed: Date.now() - started };
}

/** A tool that never returns and never looks at its abort signal. */
const stuckTool: Tool = {
  name: 'stuck',
  description: 'never returns',
  parameters: { type: 'object', properties: {} },
  execute: () => new Promise(() => undefined),
};

describe('run timeout (item 7)', () => {
  it('ends a run stuck in a hook that ignores the signal', async () => {
    const { result, elapsed } = await timedRun({ before_tool_call: () => new Promise(() => undefined) }, [stuckTool]);
    expect(result.status).toBe('timeout');
    expect(result.meta.error).toMatch(/^The run timed out after/);
    expect(elapsed).toBeLessThan(1300);
  });

  it('ends a run stuck in a tool that ignores the signal', async () => {
    const { result, elapsed } = await timedRun({}, [stuckTool]);
    expect(result.status).toBe('timeout');
    expect(elapsed).toBeLessThan(1300);
  });
});
