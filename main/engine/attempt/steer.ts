/**
 * E3 `steer`: messages that arrive for a session while its run is in the tool loop are injected at the next
 * tool boundary. Running tools finish; a tool call of the current batch that has not started yet is answered
 * "skipped: a new message arrived" (its side effects never happen); then the new message is appended as a user
 * message and the model is called again with it. A run that ends without reaching a boundary (its reply had no
 * tool calls, it failed, it was aborted) closes its inbox; whatever is left becomes a followup run (the
 * dispatcher's job), so a steered message is never dropped.
 */
import type { ToolCallBlock, ToolResultMessage, UserMessage } from '../messages.js';
import type { RunEmitter } from '../stream/run-emitter.js';

export const SKIPPED_FOR_STEER = 'skipped: a new message arrived';

export interface SteerMessage {
  text: string;
  /** The runId of the request that sent it (its caller waits on this run's result). */
  fromRunId: string;
}

/** Per-run mailbox the dispatcher fills and the attempt drains at tool boundaries. */
export class SteerInbox {
  private pending: SteerMessage[] = [];
  private open = true;
  /** Messages taken by the attempt (their callers share this run's result). */
  readonly taken: SteerMessage[] = [];

  /** False when the run can no longer take messages (the caller must queue a followup instead). */
  push(message: SteerMessage): boolean {
    if (!this.open) return false;
    this.pending.push(message);
    return true;
  }

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  get isOpen(): boolean {
    return this.open;
  }

  take(): SteerMessage[] {
    const out = this.pending;
    this.pending = [];
    this.taken.push(...out);
    return out;
  }

  /** Stops accepting; returns the messages that never landed. */
  close(): SteerMessage[] {
    this.open = false;
    const left = this.pending;
    this.pending = [];
    return left;
  }

  /** Removes the messages not yet taken (steering a subagent clears its queue). */
  clear(): SteerMessage[] {
    const left = this.pending;
    this.pending = [];
    return left;
  }
}

/** Before a tool call starts: a skipped result (with its tool events) when a steer message is waiting. */
export function skipForSteer(
  inbox: SteerInbox | undefined,
  call: ToolCallBlock,
  emitter: RunEmitter,
  now: () => number,
): ToolResultMessage | undefined {
  if (!inbox?.hasPending) return undefined;
  emitter.emit('tool', { phase: 'start', toolCallId: call.id, name: call.name, args: call.arguments });
  emitter.emit('tool', { phase: 'end', toolCallId: call.id, name: call.name, result: SKIPPED_FOR_STEER, isError: true, durationMs: 0 });
  return { role: 'toolResult', toolCallId: call.id, toolName: call.name, content: SKIPPED_FOR_STEER, isError: true, timestamp: now() };
}

/** After a batch of tool results: the waiting steer messages as one user message (or none). */
export function drainSteer(inbox: SteerInbox | undefined, now: () => number): UserMessage | undefined {
  if (!inbox?.hasPending) return undefined;
  const texts = inbox.take().map((m) => m.text);
  return { role: 'user', content: texts.join('\n\n'), timestamp: now(), steered: true };
}
