/**
 * A command sent as a message (`agent` with `/stop`, the CLI's `--message /model …`) answers like a run: it gets a
 * runId, a `lifecycle` start (marked `command`) and end, and a result whose one payload is the notice — so
 * `agent.wait`, `agent.result` and the CLI's `--json` result line work for it unchanged. It is never queued, never
 * calls a model and writes nothing to the transcript.
 */
import type { CommandOutcome, RunResult } from '../../../preload/contract.js';
import type { AgentEvent } from '../../../preload/contract.js';
import { emptyUsage } from '../../engine/messages.js';
import type { RunRecord, RunRegistry } from '../../engine/run/runs.js';
import { createRunEmitter } from '../../engine/stream/run-emitter.js';

export interface CommandRunContext {
  runId: string;
  sessionKey: string;
  /** The session's id (after the command: `/new` and `/reset` name the new one). */
  sessionId: string;
  /** The session's model (results name one, as every run result does). */
  model: { provider: string; id: string };
  runs: RunRegistry;
  emit: (event: AgentEvent) => void;
  now: () => number;
}

export function commandRun(outcome: CommandOutcome, ctx: CommandRunContext): RunRecord {
  const emitter = createRunEmitter(ctx.runId, ctx.sessionKey, ctx.emit, ctx.now);
  const startedAt = ctx.now();
  emitter.emit('lifecycle', { phase: 'start', startedAt, provider: ctx.model.provider, model: ctx.model.id, command: outcome.command });
  const result: RunResult = {
    runId: ctx.runId,
    status: outcome.ok ? 'ok' : 'error',
    payloads: [{ text: outcome.notice, ...(outcome.ok ? {} : { isError: true }) }],
    usage: emptyUsage(),
    meta: {
      provider: ctx.model.provider,
      model: ctx.model.id,
      profileId: null,
      attempts: 0,
      compactions: 0,
      command: outcome.command,
      ...(outcome.ok ? {} : { error: outcome.notice }),
    },
  };
  const endedAt = ctx.now();
  if (outcome.ok) emitter.emit('lifecycle', { phase: 'end', endedAt, result });
  else emitter.emit('lifecycle', { phase: 'error', endedAt, error: outcome.notice, result });
  const record: RunRecord = {
    runId: ctx.runId,
    sessionKey: ctx.sessionKey,
    sessionId: ctx.sessionId,
    acceptedAt: startedAt,
    startedAt,
    endedAt,
    result,
    controller: new AbortController(),
    done: Promise.resolve(result),
    state: 'ended',
    emitter,
  };
  ctx.runs.add(record);
  return record;
}
