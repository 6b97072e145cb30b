/**
 * X4: what goes into the cost ledger from a gateway — every billed model call of a run (the engine's `usage`
 * events) and every key test (a model call too, in no chat). A failed write never fails the call.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEvent, UsageData } from '../../preload/contract.js';
import { costOf } from '../engine/attempt/usage.js';
import type { ModelDef } from '../providers/types.js';
import type { Ledger } from '../usage/ledger.js';
import type { Usage } from '../engine/messages.js';

/** An event listener that records each `usage` event; `sessionIdOf` names the transcript of its run. */
export function ledgerRecorder(ledger: Ledger, sessionIdOf: (runId: string) => string | undefined): (event: AgentEvent) => void {
  return (event) => {
    if (event.stream !== 'usage') return;
    const d = event.data as UsageData;
    const sessionId = sessionIdOf(event.runId);
    void ledger
      .record({
        ts: event.ts,
        sessionKey: event.sessionKey,
        ...(sessionId ? { sessionId } : {}),
        runId: event.runId,
        kind: d.kind,
        provider: d.provider,
        model: d.model,
        profileId: d.profileId,
        input: d.usage.input,
        output: d.usage.output,
        cacheRead: d.usage.cacheRead,
        cacheWrite: d.usage.cacheWrite,
        cost: d.cost ?? null,
      })
      .catch(() => undefined);
  };
}

/** Records a key test's call (no chat: in the totals, by day, model and key). */
export function keyTestRecorder(ledger: Ledger, now: () => number): (call: { model: ModelDef; profileId: string; usage: Usage }) => void {
  return ({ model, profileId, usage }) =>
    void ledger
      .record({
        ts: now(),
        sessionKey: '',
        runId: `key-test-${randomUUID()}`, // one line each (the ledger tells its own lines from others' by run id)
        kind: 'key-test',
        provider: model.provider,
        model: model.id,
        profileId,
        input: usage.input,
        output: usage.output,
        cacheRead: usage.cacheRead,
        cacheWrite: usage.cacheWrite,
        cost: costOf(usage, model.cost) ?? null,
      })
      .catch(() => undefined);
}
