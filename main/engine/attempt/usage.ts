/**
 * E17: usage of one run (several model calls in a tool loop).
 *
 * Each call's prompt tokens (input + cacheRead + cacheWrite) already measure the whole context, so summing
 * them over N calls inflates the context size N-fold (OpenClaw's usage-inflation bug class: #17016, #117889,
 * #125333). The run's usage therefore takes input / cacheRead / cacheWrite from the LAST call, sums output
 * over all calls, and total = last call's prompt tokens + accumulated output.
 *
 * A call that reported no prompt tokens at all (e.g. a stream that failed before `message_start`) does not
 * replace the last known prompt snapshot: a context of 0 would be wrong. Its output still counts.
 * The `total` field of the calls passed in is ignored; it is recomputed.
 */
import type { Usage } from '../messages.js';

const promptTokens = (u: Usage): number => u.input + u.cacheRead + u.cacheWrite;

export class UsageAccumulator {
  #calls = 0;
  #output = 0;
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;

  add(call: Usage): void {
    this.#calls += 1;
    this.#output += call.output;
    if (promptTokens(call) > 0) {
      this.#input = call.input;
      this.#cacheRead = call.cacheRead;
      this.#cacheWrite = call.cacheWrite;
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
}

/** Field-wise sum, for per-session (billing-style) totals. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
  };
}
