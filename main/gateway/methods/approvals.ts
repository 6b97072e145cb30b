/**
 * Gateway methods of the approvals (T3): `approvals.respond` answers a request the run is waiting on;
 * `approvals.list` returns the requests still waiting (a reloaded window shows their cards again).
 */
import type { ApprovalBroker } from '../../tools/approvals/broker.js';
import { parseParams } from '../params.js';
import type { PendingApprovals } from '../pending-approvals.js';

export function approvalMethods(broker: ApprovalBroker, pending: PendingApprovals) {
  return {
    async 'approvals.respond'(raw: unknown): Promise<{ ok: boolean }> {
      const p = parseParams('approvals.respond', raw);
      return { ok: broker.respond(p.approvalId, p.decision, p.reason, p.unasked) };
    },
    async 'approvals.list'(raw: unknown) {
      const p = parseParams('approvals.list', raw);
      return pending.list(p.sessionKey);
    },
  };
}
