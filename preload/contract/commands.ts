/** D2 contract: the commands the gateway owns (`/new`, `/reset`, `/stop`, `/compact`, `/model`, `/think`, `/verbose`, `/status`). */
import type { SessionSummary } from './sessions.js';

export type CommandNameDto = 'new' | 'reset' | 'stop' | 'compact' | 'model' | 'think' | 'verbose' | 'status';

/** What a command did: a short notice for the person, and what changed. */
export interface CommandOutcome {
  command: CommandNameDto;
  /** False when the command could not be done (bad argument, a run in the way); `notice` says why. */
  ok: boolean;
  notice: string;
  /** The session as it is now (`/new`: the new one; `/reset`, `/model`, `/think`, `/verbose`: the changed one). */
  session?: SessionSummary;
  /** `/reset`: the earlier conversation, kept as a chat of its own (absent when it held no message). */
  kept?: SessionSummary;
  /** `/compact`: the run that compacts (its events and result as for any run). */
  runId?: string;
}
