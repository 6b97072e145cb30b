/**
 * Gateway methods of runs (E1–E4): `agent` (accept a message — or a command the gateway owns, answered as a run;
 * an idempotency key starts one run however often it is sent), `agent.wait`, `agent.result`, `agent.abort`, and
 * `commands.run` (E22: a command the gateway owns, for the UI's shortcuts).
 */
import type { AgentAccepted, CommandOutcome } from '../../../preload/contract.js';
import type { RunRecord, RunRegistry } from '../../engine/run/runs.js';
import type { IdempotencyCache } from '../idempotency.js';
import { parseParams } from '../params.js';
import { GatewayError } from '../types.js';
import { abortError } from '../../engine/abort.js';
import type { AcceptRequest } from '../run-execution.js';

export interface AgentMethodsContext {
  accept: (request: AcceptRequest) => Promise<RunRecord>;
  /** E22: runs a command the gateway owns, or null for ordinary text. */
  command: (sessionKey: string, text: string) => Promise<CommandOutcome | null>;
  runs: RunRegistry;
  idempotency: IdempotencyCache<AgentAccepted>;
}

export const toAccepted = (r: RunRecord): AgentAccepted => ({ runId: r.runId, sessionKey: r.sessionKey, sessionId: r.sessionId, acceptedAt: r.acceptedAt });

export function agentMethods({ accept, command, runs, idempotency }: AgentMethodsContext) {
  const mustGetRun = (runId: string): RunRecord => {
    const run = runs.get(runId);
    if (!run) throw new GatewayError('not_found', `No run with id ${runId}.`);
    return run;
  };
  return {
    async agent(raw: unknown) {
      const p = parseParams('agent', raw);
      const { idempotencyKey, sessionKey, ...rest } = p;
      const start = () => accept({ ...rest, sessionKey: sessionKey ?? 'main' }).then(toAccepted);
      return idempotencyKey ? idempotency.run(idempotencyKey, start) : start();
    },
    async 'agent.wait'(raw: unknown) {
      const p = parseParams('agent.wait', raw);
      return runs.wait(mustGetRun(p.runId), p.timeoutMs ?? 30_000);
    },
    async 'agent.result'(raw: unknown) {
      const p = parseParams('agent.result', raw);
      return mustGetRun(p.runId).result ?? null;
    },
    async 'agent.abort'(raw: unknown) {
      const p = parseParams('agent.abort', raw);
      return { aborted: runs.abort(p.runId, abortError('The run was stopped.')) };
    },
    async 'commands.run'(raw: unknown) {
      const p = parseParams('commands.run', raw);
      return command(p.sessionKey, p.text);
    },
  };
}
