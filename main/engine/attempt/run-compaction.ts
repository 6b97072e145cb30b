/**
 * Compaction state of one run, shared by its attempts and the overflow hand-off (run/compaction-recovery.ts):
 * the E18 coordination, the overflow steps taken so far (≤ 3 compactions, then one truncation), whether tool
 * results are to be shortened as far as they go, and how many compactions the run recorded (`meta.compactions`).
 */
import { CompactionCoordinator } from '../run/compaction-coordinator.js';
import { OverflowRecovery } from './overflow-recovery.js';

export interface RunCompaction {
  coordinator: CompactionCoordinator;
  overflow: OverflowRecovery;
  /** Set by the overflow path's truncation step; every later attempt of the run shortens all tool results. */
  shrinkAll: boolean;
  /** Compactions recorded by the run (preemptive, overflow). */
  compactions: number;
}

export const newRunCompaction = (coordinator = new CompactionCoordinator()): RunCompaction => ({
  coordinator,
  overflow: new OverflowRecovery(),
  shrinkAll: false,
  compactions: 0,
});
