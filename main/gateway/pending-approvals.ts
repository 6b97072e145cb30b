/**
 * The approval requests still waiting for an answer (T3), as the `approval` events that asked them — so a window
 * that reloads, or a client that connects while a run waits, gets the card back instead of a run stuck on
 * "Working…". Fed every gateway event: a request is added, its `resolved` event or the end of its run removes it.
 */
import type { AgentEvent, ApprovalData } from '../../preload/contract.js';

export class PendingApprovals {
  private readonly byId = new Map<string, AgentEvent>();

  readonly onEvent = (event: AgentEvent): void => {
    if (event.stream === 'approval') {
      const data = event.data as ApprovalData;
      if (data.phase === 'request') this.byId.set(data.approvalId, event);
      else this.byId.delete(data.approvalId);
      return;
    }
    if (event.stream === 'lifecycle') {
      const phase = (event.data as { phase: string }).phase;
      if (phase !== 'end' && phase !== 'error') return;
      for (const [id, e] of this.byId) if (e.runId === event.runId) this.byId.delete(id);
    }
  };

  /** Waiting requests, oldest first (optionally of one session). */
  list(sessionKey?: string): AgentEvent[] {
    const all = [...this.byId.values()];
    return sessionKey === undefined ? all : all.filter((e) => e.sessionKey === sessionKey);
  }
}
