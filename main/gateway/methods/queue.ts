/**
 * Gateway methods for the queue and the runs registry (E3, E4), for the UI's queued-message indicator and stop
 * controls: queue.list / queue.remove, runs.abort (one run, one session, all compacting, all), agent.steer.
 */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { MethodName, Methods, QueueEntryDto } from '../../../preload/contract.js';
import type { Lanes } from '../../engine/run/lanes.js';
import type { RunRecord, RunRegistry } from '../../engine/run/runs.js';
import type { Dispatcher } from '../../engine/run/dispatcher.js';
import type { SessionStore } from '../../sessions/store.js';
import { parseWith, sessionKey } from '../params.js';
import { GatewayError } from '../types.js';

export type Handler<M extends MethodName> = (params: unknown) => Promise<Methods[M][1]>;

export const queueSchemas = lazy(() => ({
  'queue.list': z.object({ sessionKey: sessionKey.optional() }).strict(),
  'queue.remove': z.object({ runId: z.string().min(1) }).strict(),
  'runs.abort': z
    .object({ runId: z.string().min(1).optional(), sessionKey: sessionKey.optional(), scope: z.enum(['compacting', 'all']).optional() })
    .strict()
    .refine((p) => [p.runId, p.sessionKey, p.scope].filter((v) => v !== undefined).length === 1, 'give exactly one of runId, sessionKey, scope'),
  'agent.steer': z
    .object({
      sessionKey,
      message: z.string().refine((s) => s.trim().length > 0, 'message must not be empty').pipe(z.string().max(1_000_000)),
    })
    .strict(),
}));

export interface QueueMethodsContext {
  lanes: Lanes;
  runs: RunRegistry;
  dispatcher: Dispatcher;
  store: SessionStore;
  /** Accepts a message like `agent` does, with the given queue mode. */
  submit: (sessionKey: string, message: string, mode: 'steer') => Promise<RunRecord>;
}

import { abortError } from '../../engine/abort.js';

export function queueMethods(ctx: QueueMethodsContext): {
  'queue.list': Handler<'queue.list'>;
  'queue.remove': Handler<'queue.remove'>;
  'runs.abort': Handler<'runs.abort'>;
  'agent.steer': Handler<'agent.steer'>;
} {
  return {
    async 'queue.list'(raw) {
      const p = parseWith(queueSchemas['queue.list'], 'queue.list', raw);
      return ctx.lanes.list(p.sessionKey).flatMap((entry): QueueEntryDto[] => {
        const run = ctx.runs.get(entry.id);
        if (!run) return [];
        return [
          {
            runId: run.runId,
            sessionKey: run.sessionKey,
            mode: run.mode ?? 'followup',
            lane: entry.lane,
            stage: entry.stage,
            position: entry.position,
            enqueuedAt: entry.enqueuedAt,
            preview: (run.message ?? '').slice(0, 200),
            ...(run.collected ? { merged: run.collected.count } : {}),
          },
        ];
      });
    },
    async 'queue.remove'(raw) {
      const p = parseWith(queueSchemas['queue.remove'], 'queue.remove', raw);
      return { removed: ctx.dispatcher.remove(p.runId) };
    },
    async 'runs.abort'(raw) {
      const p = parseWith(queueSchemas['runs.abort'], 'runs.abort', raw);
      const stop = abortError('The run was stopped.');
      if (p.runId) return { aborted: ctx.runs.abort(p.runId, stop) ? 1 : 0 };
      if (p.sessionKey) {
        const session = await ctx.store.get(p.sessionKey);
        if (!session) throw new GatewayError('not_found', `No session ${JSON.stringify(p.sessionKey)}.`);
        return { aborted: ctx.runs.abortSession(session.sessionId, stop) };
      }
      return { aborted: p.scope === 'compacting' ? ctx.runs.abortCompacting(stop) : ctx.runs.abortAll(stop) };
    },
    async 'agent.steer'(raw) {
      const p = parseWith(queueSchemas['agent.steer'], 'agent.steer', raw);
      const record = await ctx.submit(p.sessionKey, p.message, 'steer');
      return record.state === 'steered' && record.intoRunId
        ? { status: 'steered', runId: record.runId, intoRunId: record.intoRunId }
        : { status: 'queued', runId: record.runId };
    },
  };
}
