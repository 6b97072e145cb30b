/** D2 contract: X2 checkpoints — the `checkpoint` run stream and the `checkpoints.*` methods. */

/**
 * `checkpoint` stream: the workspace was recorded before the turn's first change (`created`), or could not be
 * (`failed`: the turn goes on without an undo point, and says so).
 */
export type CheckpointData =
  /**
   * `takenAt`: the folder is recorded as it was when the run started (prepared beside the turn); unset: at this call.
   * `savedFirst`: paths saved as they were just before the tool changed them, the tool running before this commit.
   */
  | { phase: 'created'; id: string; files: number; skipped: number; label: string; toolName: string; takenAt?: number; savedFirst?: string[] }
  | { phase: 'failed'; error: string; toolName: string };

export interface CheckpointDto {
  id: string;
  createdAt: number;
  /** First line of the user message of the turn. */
  label: string;
  /** Files and symlinks captured. */
  files: number;
  /** Files not captured (too large, over the total cap, special). */
  skipped: number;
  /** The turn's user message, and the transcript it was written to (matching a message in the chat). */
  message?: string;
  sessionId?: string;
  runId?: string;
  /** Timestamp of that user message in the transcript (the chat matches its message by it). */
  messageAt?: number;
}

export interface RestoreDto {
  id: string;
  at: number;
  target: string;
  files: boolean;
  conversation: boolean;
  undoOf?: string;
  summary: { modified: number; created: number; deleted: number };
  /**
   * The restore could neither be finished nor put back: one line saying the folder is partly restored, why, and that
   * its undo puts it back once that is fixed.
   */
  incomplete?: string;
}

export type RestoreMode = 'files' | 'both' | 'conversation';

export interface CheckpointChangeDto {
  path: string;
  /** What the restore does to the path: bring it back, change it, remove it. */
  kind: 'created' | 'modified' | 'deleted';
  type: 'file' | 'folder' | 'symlink';
}

export interface CheckpointPreview {
  summary: { modified: number; created: number; deleted: number };
  /** The changes (first 500, files and symlinks). */
  changes: CheckpointChangeDto[];
  more: number;
  /** Files the checkpoint did not capture (left as they are). */
  skipped: number;
}

export interface CheckpointDiff {
  path: string;
  /** Text now / after the restore; null when absent; `binary` when not shown as text. */
  current: string | null;
  restored: string | null;
  binary?: boolean;
}

export interface RestoreResultDto {
  restore: RestoreDto;
  /** One line for the person ("Restored 3 files …"). */
  message: string;
  /** Restore of the conversation: the text of the user message it was cut before (to edit and resend). */
  draft?: string;
}
