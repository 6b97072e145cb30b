/**
 * The AttemptParams the attempt unit tests start from: run `run-1` of session `main`, the real workspace tools, no
 * hooks, and every emitted event and persisted message recorded. A test passes what it is about (the stream, the
 * messages, the clock) and overrides the rest.
 */
import type { AgentEvent } from '../../preload/contract.js';
import type { Message } from '../../main/engine/messages.js';
import type { ModelDef, StreamFn } from '../../main/providers/types.js';
import type { AttemptParams } from '../../main/engine/attempt/attempt.js';
import { createRunEmitter } from '../../main/engine/stream/run-emitter.js';
import { createWorkspaceTools } from '../../main/tools/index.js';

export function attemptParams(opts: {
  model: ModelDef;
  workspace: string;
  streamFn: StreamFn;
  messages: Message[];
  /** The attempt's clock (`params.now`). */
  now: () => number;
  /** The event timestamps' clock (default: the emitter's own). */
  eventClock?: () => number;
}): { params: AttemptParams; events: AgentEvent[]; persisted: Message[] } {
  const events: AgentEvent[] = [];
  const persisted: Message[] = [];
  const params: AttemptParams = {
    runId: 'run-1',
    sessionKey: 'main',
    model: opts.model,
    apiKey: 'k',
    streamFn: opts.streamFn,
    systemPrompt: 'sys',
    messages: opts.messages,
    tools: createWorkspaceTools(),
    workspace: opts.workspace,
    thinking: 'off',
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
    emitter: createRunEmitter('run-1', 'main', (e) => events.push(e), opts.eventClock),
    hooks: {},
    now: opts.now,
    persist: async (m) => void persisted.push(m),
  };
  return { params, events, persisted };
}
