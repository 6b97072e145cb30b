/**
 * E17: usage, in the two senses a person needs.
 *
 * The run's `usage` (UsageAccumulator) describes the context: each call's prompt tokens (input + cacheRead +
 * cacheWrite) already measure the whole context, so summing them over N calls inflates the context N-fold
 * (OpenClaw's usage-inflation bug class: #17016, #117889, #125333). It takes input / cacheRead / cacheWrite from the
 * LAST call, sums output over all calls, and total = last call's prompt tokens + accumulated output. A call that
 * reported no prompt tokens at all (a stream that failed before `message_start`) does not replace the last known
 * prompt snapshot. `context()` is the size the conversation has now: the last call's prompt plus its output.
 *
 * Billing (Billing, addBilling) is what was paid for: every call counts — each tool-loop call, failed calls that
 * reported tokens, compaction summaries and `/compact` — summed field by field, with the cost in USD where the
 * model's price is known (a total whose calls were not all priced has no cost: never a guessed one).
 */
import type { Usage } from '../messages.js';
import type { ModelCost } from '../../providers/types.js';

const promptTokens = (u: Usage): number => u.input + u.cacheRead + u.cacheWrite;

export class UsageAccumulator {
  #calls = 0;
  #output = 0;
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;
  #lastOutput = 0;

  add(call: Usage): void {
    this.#calls += 1;
    this.#output += call.output;
    if (promptTokens(call) > 0) {
      this.#input = call.input;
      this.#cacheRead = call.cacheRead;
      this.#cacheWrite = call.cacheWrite;
      this.#lastOutput = call.output;
    }
  }

  get calls(): number {
    return this.#calls;
  }

  result(): Usage {
    const input = this.#input;
    const cacheRead = this.#cacheRead;
    const cacheWrite = this.#cacheWrite;
    const output = this.#output;
    return { input, output, cacheRead, cacheWrite, total: input + cacheRead + cacheWrite + output };
  }

  /** Tokens the conversation takes now: the last call's prompt and its reply (0 when no call reported any). */
  context(): number {
    return this.#input + this.#cacheRead + this.#cacheWrite + this.#lastOutput;
  }
}

/** Billed tokens: every call summed; `cost` (USD) only when every call counted had a known price. */
export interface Billing extends Usage {
  /** Model calls counted. */
  calls: number;
  cost?: number;
}

export const emptyBilling = (): Billing => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, calls: 0, cost: 0 });

/** The cost of one call in USD at `price` (per million tokens; cache prices default to the input price). */
export function costOf(u: Usage, price: ModelCost | undefined): number | undefined {
  if (!price) return undefined;
  return (u.input * price.input + u.output * price.output + u.cacheRead * (price.cacheRead ?? price.input) + u.cacheWrite * (price.cacheWrite ?? price.input)) / 1_000_000;
}

/** One call as billing: its tokens (total = all four buckets) and its cost where priced. */
export function billingOf(u: Usage, cost: number | undefined): Billing {
  const total = u.input + u.output + u.cacheRead + u.cacheWrite;
  return { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, total, calls: 1, ...(cost !== undefined ? { cost } : {}) };
}

/**
 * Field-wise sum. The cost stays known only while both sides' are: a side with tokens but no cost (an unpriced
 * model, or totals kept before costs were) makes the sum's cost unknown for good.
 */
export function addBilling(a: Billing | Usage, b: Billing | Usage): Billing {
  const costA = 'cost' in a ? a.cost : a.total === 0 ? 0 : undefined;
  const costB = 'cost' in b ? b.cost : b.total === 0 ? 0 : undefined;
  const known = costA !== undefined && costB !== undefined;
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
    calls: ('calls' in a ? a.calls : 0) + ('calls' in b ? b.calls : 0),
    ...(known ? { cost: costA + costB } : {}),
  };
}
