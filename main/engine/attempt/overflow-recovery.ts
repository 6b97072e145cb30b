/**
 * What to do when the provider answers "context overflow" (inventory §9, reactive path), run-scoped:
 * compact and retry at most 3 times, then truncate tool results once, then give up with a clear error.
 * A compaction that found nothing to summarise does not spend the budget on further no-op compactions
 * (OpenClaw #78562 / #150447: the 3 attempts went to no-op compactions): it moves straight on to truncation.
 */

export const MAX_OVERFLOW_COMPACTIONS = 3;

export type OverflowStep = 'compact' | 'truncate' | 'give_up';

/** Why the run gives up (the loop shows it after the provider's overflow message). */
export const OVERFLOW_GIVE_UP_MESSAGE =
  'the conversation is still too large after compacting it and shortening tool results; start a new session (/new) or use a model with a larger window';

export class OverflowRecovery {
  #compactions = 0;
  #truncated = false;
  #nothingToCompact = false;

  constructor(readonly maxCompactions = MAX_OVERFLOW_COMPACTIONS) {}

  get compactions(): number {
    return this.#compactions;
  }

  /** The next recovery step; calling it records that the step is being taken. */
  next(): OverflowStep {
    if (!this.#nothingToCompact && this.#compactions < this.maxCompactions) {
      this.#compactions++;
      return 'compact';
    }
    if (!this.#truncated) {
      this.#truncated = true;
      return 'truncate';
    }
    return 'give_up';
  }

  /** The last 'compact' step had nothing to summarise: it does not count, and no further compaction is tried. */
  nothingToCompact(): void {
    this.#nothingToCompact = true;
    this.#compactions = Math.max(0, this.#compactions - 1);
  }
}
