/**
 * E17 billing for one run: every model call is recorded here — each call of the tool loop (failed ones included,
 * with whatever tokens they reported), the compaction summaries (preemptive, after an overflow, `/compact`) — as a
 * `usage` event of its own (kind, model, key profile, tokens, cost where the price is known) and into the run's
 * billed total (`meta.usage`, added to the session's totals). The per-call events are the interface a cost ledger
 * builds on.
 */
import type { UsageData } from '../../../preload/contract.js';
import type { Usage } from '../messages.js';
import type { ModelDef } from '../../providers/types.js';
import { addBilling, billingOf, costOf, emptyBilling, type Billing } from '../attempt/usage.js';

export type CallKind = UsageData['kind'];

export class UsageMeter {
  #billing: Billing = emptyBilling();
  /** The key profile of the calls being made now (the outer loop sets it before each attempt). */
  profileId: string | null = null;

  constructor(private readonly emit: (data: UsageData) => void = () => {}) {}

  /** One model call's usage. `turn`: the run's turn index of a tool-loop call. */
  record(kind: CallKind, model: ModelDef, usage: Usage, turn?: number): void {
    const cost = costOf(usage, model.cost);
    const call = billingOf(usage, cost);
    this.#billing = addBilling(this.#billing, call);
    const { calls: _calls, cost: _cost, ...tokens } = call;
    this.emit({
      kind,
      ...(turn !== undefined ? { turn } : {}),
      provider: model.provider,
      model: model.id,
      profileId: this.profileId,
      usage: tokens,
      ...(cost !== undefined ? { cost } : {}),
    });
  }

  /** What the run has been billed so far. */
  get billing(): Billing {
    return { ...this.#billing };
  }
}
