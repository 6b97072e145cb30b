/** X2 checkpoint store: its settings, inputs and options (store.ts). */
import type { CheckpointRecord } from './log.js';
import { DEFAULT_MAX_ENTRIES, type ScanLimits } from './scan.js';

export interface CheckpointSettings extends Required<ScanLimits> {
  /** Turn checkpoints kept per session. */
  keep: number;
  /** Checkpoints older than this are dropped. */
  maxAgeMs: number;
}

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = {
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxEntries: DEFAULT_MAX_ENTRIES,
  keep: 100,
  maxAgeMs: 30 * 24 * 3600 * 1000,
};

export class CheckpointNotFoundError extends Error {
  override name = 'CheckpointNotFoundError';
}

export interface SnapshotInput {
  sessionKey: string;
  root: string;
  label: string;
  kind?: CheckpointRecord['kind'];
  sessionId?: string;
  runId?: string;
  runStartedAt?: number;
  message?: string;
}

/** Switches a session's conversation to another transcript (the session store's part of a restore). */
export type SwitchConversation = (sessionKey: string, sessionId: string) => Promise<void>;

export interface RestorePlan {
  sessionKey: string;
  /** The checkpoint to restore to. */
  id: string;
  files: boolean;
  undoOf?: string;
  /** Prepared before the restore (a branch transcript already written): switched to as part of it. */
  conversation?: { from: string; to: string };
}

export interface StoreOptions {
  settings?: () => CheckpointSettings;
  now?: () => number;
  racyMs?: number;
  /** Paths never captured (the data folder when it lies inside a workspace). */
  exclude?: readonly string[];
  switchConversation?: SwitchConversation;
  /** A line for the person about a recovered operation (default: stderr). */
  onNotice?: (line: string) => void;
  /** How long a killed holder's lock blocks others (default file-lock's 10 s). */
  lockStaleMs?: number;
}
