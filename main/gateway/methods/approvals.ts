/** Gateway method of the approvals (T3): `approvals.respond` answers a request the run is waiting on. */
import type { ApprovalBroker } from '../../tools/approvals/broker.js';
import { parseParams } from '../params.js';

export function approvalMethods(broker: ApprovalBroker) {
  return {
    async 'approvals.respond'(raw: unknown): Promise<{ ok: boolean }> {
      const p = parseParams('approvals.respond', raw);
      return { ok: broker.respond(p.approvalId, p.decision, p.reason) };
    },
  };
}
