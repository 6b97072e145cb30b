/**
 * The checkpoint gate as the gateway wires it (main/checkpoints/gate.ts), for tests that drive runs by hand: a run
 * table filled by `lifecycle(runId, 'start' | 'end')`, which also sends the lifecycle events the gate listens to. A
 * run's start is followed, as in the engine, by its first model call (`gate.waiting`), unless `modelWait: false`.
 */
import type { AgentEvent } from '../../preload/contract.js';
import { createCheckpointGate, type RunInfo } from '../../main/checkpoints/gate.js';
import type { CheckpointPrefetcher } from '../../main/checkpoints/prefetch.js';
import type { CheckpointStore } from '../../main/checkpoints/store.js';

export function gateHarness(store: CheckpointStore, root: string, prefetch: CheckpointPrefetcher, deferMaxMs?: number) {
  const runs: Record<string, RunInfo> = {};
  const listeners = new Set<(e: AgentEvent) => void>();
  const lifecycle = (runId: string, phase: 'start' | 'end' | 'error', o: { modelWait?: boolean } = {}) => {
    if (phase === 'start') runs[runId] = { sessionId: `id-${runId}`, message: `turn ${runId}`, startedAt: Date.now() };
    else runs[runId]!.endedAt = Date.now();
    for (const l of listeners) l({ type: 'event', runId, sessionKey: 's', seq: 0, stream: 'lifecycle', data: { phase }, ts: Date.now() } as AgentEvent);
    if (phase === 'start' && o.modelWait !== false) gate.waiting?.(runId);
  };
  const gate = createCheckpointGate({
    store,
    run: (id) => runs[id],
    root: () => root,
    enabled: () => true,
    prefetch,
    ...(deferMaxMs !== undefined ? { deferMaxMs } : {}),
    events: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  });
  return { runs, lifecycle, gate };
}
