/**
 * Compaction state of one run, shared by its attempts and the overflow hand-off (run/overflow-recovery.ts): the
 * E18 coordination, the overflow steps taken so far (≤ 3 compactions, then one truncation), and how many
 * compactions the run recorded (`meta.compactions`).
 */
import { CompactionCoordinator } from '../run/compaction-coordinator.js';
import { OverflowSteps } from '../run/overflow-recovery.js';

export interface RunCompaction {
  coordinator: CompactionCoordinator;
  overflow: OverflowSteps;
  /** Compactions recorded by the run (preemptive, overflow). */
  compactions: number;
}

export const newRunCompaction = (coordinator = new CompactionCoordinator()): RunCompaction => ({
  coordinator,
  overflow: new OverflowSteps(),
  compactions: 0,
});
