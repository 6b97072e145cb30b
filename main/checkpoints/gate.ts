/**
 * X2: the engine's checkpoint gate — one snapshot per turn, before its first mutating tool call. A turn is one run
 * (one user message): the run's record says which transcript and which message it belongs to. A subagent's run
 * takes none of its own: the parent's `spawn_subagent` call is mutating, so the parent's turn was recorded before
 * the child started, and restoring that turn also takes back what the child did.
 */
import type { CheckpointGate } from '../engine/attempt/checkpoint-step.js';
import type { CheckpointStore } from './store.js';

export interface RunInfo {
  sessionId: string;
  message?: string;
  startedAt?: number;
  /** A subagent's run. */
  parent?: unknown;
  endedAt?: number;
}

export interface GateDeps {
  store: CheckpointStore;
  /** The run's record (the runs registry). */
  run: (runId: string) => RunInfo | undefined;
  /** The workspace root (a run's cwd may be a folder inside it). */
  root: () => string;
  /** Settings: checkpoints on (default) or off. */
  enabled: () => boolean;
}

/** First line of a message, at most 120 characters (the label a list shows). */
export function labelOf(message: string | undefined): string {
  const line = (message ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function createCheckpointGate(deps: GateDeps): CheckpointGate {
  /** Runs whose turn is recorded (or being recorded): the snapshot, shared by concurrent calls of one run. */
  const taken = new Map<string, Promise<void>>();
  return (info) => {
    // Forget runs that have ended (the map holds only live runs).
    for (const id of taken.keys()) if (deps.run(id)?.endedAt !== undefined || !deps.run(id)) taken.delete(id);
    const existing = taken.get(info.runId);
    if (existing) return existing;
    const run = deps.run(info.runId);
    if (!deps.enabled() || (run && run.parent !== undefined)) return Promise.resolve();
    const p = (async () => {
      const record = await deps.store.snapshot({
        sessionKey: info.sessionKey,
        root: deps.root(),
        label: labelOf(run?.message),
        runId: info.runId,
        ...(run ? { sessionId: run.sessionId, runStartedAt: run.startedAt, message: run.message } : {}),
      });
      info.emit({ phase: 'created', id: record.id, files: record.files, skipped: record.skipped, label: record.label, toolName: info.toolName });
    })();
    // A failed snapshot is reported once (runCheckpointStep) and not retried for every later call of the turn.
    taken.set(info.runId, p.catch(() => undefined));
    return p;
  };
}
