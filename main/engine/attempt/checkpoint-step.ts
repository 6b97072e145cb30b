/**
 * X2: the checkpoint step of a tool call, run by tool-lifecycle after approval and right before a mutating tool
 * executes. The gate (main/checkpoints/gate.ts, injected on the hook runner like the approval gate) records the
 * workspace once per turn; the engine only says which call is about to change it and gives the run's event stream.
 * A failing gate never fails the tool: the turn goes on and the `checkpoint` stream says no undo point was made.
 * The gate may let a `write`/`edit` run before its checkpoint is committed (copy-on-write): the commit may end after
 * the run does (the run's later mutating calls wait for it, and so do the store's list, preview, restore and close).
 */
import type { CheckpointData } from '../../../preload/contract.js';
import { isMutating, type Tool } from '../../tools/types.js';

export interface CheckpointRequestInfo {
  runId: string;
  sessionKey: string;
  toolName: string;
  /** The one path the call changes (`Tool.changesOnly`: a `write`/`edit`) and the run's workspace (copy-on-write). */
  changesOnly?: unknown;
  workspace?: string;
  emit: (data: CheckpointData) => void;
}

export type CheckpointGate = ((info: CheckpointRequestInfo) => Promise<void>) & {
  /** The run starts a model call and will wait for its reply: a capture put off until then may run (gate.ts). */
  waiting?: (runId: string) => void;
};

export async function runCheckpointStep(gate: CheckpointGate | undefined, tool: Tool, info: CheckpointRequestInfo, args?: Record<string, unknown>): Promise<void> {
  if (!gate || !isMutating(tool)) return;
  try {
    const only = tool.changesOnly && args ? tool.changesOnly(args) : undefined;
    await gate(only === undefined ? info : { ...info, changesOnly: only });
  } catch (err) {
    info.emit({ phase: 'failed', error: (err as Error)?.message ?? String(err), toolName: info.toolName });
  }
}

/** Says that the run is about to wait for its model (never throws). */
export function modelCallStarts(gate: CheckpointGate | undefined, runId: string): void {
  try {
    gate?.waiting?.(runId);
  } catch {
    /* a checkpoint never fails the run */
  }
}
