/**
 * The approval step of a tool call (T3), run by tool-lifecycle after the before_tool_call hook and before the
 * tool executes. The gate (policy, waiting for the person) is injected on the hook runner
 * (`HookRunner.approvals`, not time-boxed like the hooks); the engine only supplies the run's abort signal (the run timeout included) and the
 * `approval` event stream, and turns a refusal into an error result the model sees.
 */
import type { ApprovalData } from '../../../preload/contract.js';

export interface ApprovalRequestInfo {
  runId: string;
  sessionKey: string;
  toolCallId: string;
  toolName: string;
  params: Record<string, unknown>;
  workspace: string;
  /** Aborts with the run (Stop, run timeout). */
  signal: AbortSignal;
  /** Emits on the run's `approval` stream. */
  emit: (data: ApprovalData) => void;
}

export type ApprovalOutcome = { allow: true } | { allow: false; reason: string };

export type ApprovalGate = (info: ApprovalRequestInfo) => Promise<ApprovalOutcome>;

/** Throws an Error whose message is what the model receives when the call is not allowed. */
export async function runApprovalStep(gate: ApprovalGate | undefined, info: ApprovalRequestInfo): Promise<void> {
  if (!gate) return;
  const outcome = await gate(info);
  if (!outcome.allow) throw new Error(outcome.reason);
}
