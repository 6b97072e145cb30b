/**
 * Pending approval requests (T3), keyed by tool call id, fed by the run events' `approval` stream and answered
 * through the gateway's `approvals.respond`. Kept apart from the chat store: the card subscribes to its own slice.
 */
import { create } from 'zustand';
import type { AgentDeskApi, ApprovalData, ApprovalDecision } from '../../../preload/contract.js';
import type { ConnectionStatus } from '../transport/types.js';

export type ApprovalRequest = Extract<ApprovalData, { phase: 'request' }>;

interface ApprovalsState {
  byToolCall: Record<string, ApprovalRequest>;
  /** Set while an answer is on its way, to disable the buttons. */
  answering: Record<string, true>;
  error?: string;
}

export const useApprovals = create<ApprovalsState>(() => ({ byToolCall: {}, answering: {} }));

let api: AgentDeskApi | undefined;

export function applyApprovalEvent(data: ApprovalData): void {
  useApprovals.setState((s) => {
    if (data.phase === 'request') return { byToolCall: { ...s.byToolCall, [data.toolCallId]: data } };
    const { [data.toolCallId]: _gone, ...byToolCall } = s.byToolCall;
    const { [data.approvalId]: _done, ...answering } = s.answering;
    return { byToolCall, answering };
  });
}

/**
 * The requests still waiting, from the gateway (`approvals.list`): they replace what this window knew, so a card
 * comes back after a reload or reconnect, and one answered elsewhere meanwhile goes.
 */
export async function syncApprovals(): Promise<void> {
  if (!api) return;
  let events;
  try {
    events = await api.request('approvals.list', {});
  } catch {
    return; // an older gateway without the method: live events still arrive
  }
  const byToolCall: Record<string, ApprovalRequest> = {};
  for (const e of events) {
    const data = e.data as ApprovalData;
    if (data.phase === 'request') byToolCall[data.toolCallId] = data;
  }
  useApprovals.setState({ byToolCall });
}

/**
 * Subscribes to the transport's events (called once at start-up, next to the chat store) and asks for the requests
 * still waiting now and after every reconnect.
 */
export function startApprovals(a: AgentDeskApi, onStatus?: (l: (s: ConnectionStatus) => void) => () => void): void {
  api = a;
  a.onEvent((event) => {
    if (event.stream === 'approval') applyApprovalEvent(event.data as ApprovalData);
  });
  if (onStatus) onStatus((status) => status === 'open' && void syncApprovals());
  else void syncApprovals();
}

export async function respondToApproval(approvalId: string, decision: ApprovalDecision, reason?: string): Promise<void> {
  if (!api) return;
  useApprovals.setState((s) => ({ answering: { ...s.answering, [approvalId]: true }, error: undefined }));
  try {
    await api.request('approvals.respond', { approvalId, decision, ...(reason?.trim() ? { reason: reason.trim() } : {}) });
  } catch (err) {
    useApprovals.setState((s) => {
      const { [approvalId]: _x, ...answering } = s.answering;
      return { answering, error: (err as Error).message };
    });
  }
}
