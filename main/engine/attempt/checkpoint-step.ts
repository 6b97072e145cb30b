/**
 * X2: the checkpoint step of a tool call, run by tool-lifecycle after approval and right before a mutating tool
 * executes. The gate (main/checkpoints/gate.ts, injected on the hook runner like the approval gate) records the
 * workspace once per turn; the engine only says which call is about to change it and gives the run's event stream.
 * A failing gate never fails the tool: the turn goes on and the `checkpoint` stream says no undo point was made.
 */
import type { CheckpointData } from '../../../preload/contract.js';
import { isMutating, type Tool } from '../../tools/types.js';

export interface CheckpointRequestInfo {
  runId: string;
  sessionKey: string;
  toolName: string;
  emit: (data: CheckpointData) => void;
}

export type CheckpointGate = (info: CheckpointRequestInfo) => Promise<void>;

export async function runCheckpointStep(gate: CheckpointGate | undefined, tool: Tool, info: CheckpointRequestInfo): Promise<void> {
  if (!gate || !isMutating(tool)) return;
  try {
    await gate(info);
  } catch (err) {
    info.emit({ phase: 'failed', error: (err as Error)?.message ?? String(err), toolName: info.toolName });
  }
}
