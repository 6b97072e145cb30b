/**
 * Remembers the events of every run that has not ended yet, so a window that reloads (or opens the session) mid-run
 * can replay them and show ONE turn that keeps streaming. Consecutive text/thinking deltas of one turn are merged
 * into one event (the last seq, the joined delta): memory grows with the text, not with the number of chunks.
 */
import type { ActiveRunSnapshot, AgentEvent, AssistantData, ThinkingData } from '../../../preload/contract.js';

interface Tracked {
  runId: string;
  sessionKey: string;
  message: string;
  acceptedAt: number;
  started: boolean;
  events: AgentEvent[];
}

function mergeable(prev: AgentEvent | undefined, next: AgentEvent): boolean {
  if (!prev || prev.stream !== next.stream) return false;
  if (next.stream !== 'assistant' && next.stream !== 'thinking') return false;
  return (prev.data as AssistantData).turn === (next.data as AssistantData).turn;
}

export class ActiveRuns {
  private readonly runs = new Map<string, Tracked>();

  /** Called when a run is accepted (before any of its events). */
  track(run: { runId: string; sessionKey: string; acceptedAt: number }, message: string): void {
    this.runs.set(run.runId, { ...run, message, started: false, events: [] });
  }

  /** Feed every gateway event here. */
  readonly onEvent = (event: AgentEvent): void => {
    const run = this.runs.get(event.runId);
    if (!run) return;
    if (event.stream === 'lifecycle') {
      const phase = (event.data as { phase: string }).phase;
      if (phase === 'end' || phase === 'error') {
        this.runs.delete(event.runId);
        return;
      }
      if (phase === 'start') run.started = true;
    }
    const prev = run.events.at(-1);
    if (mergeable(prev, event)) {
      const a = prev!.data as AssistantData | ThinkingData;
      const b = event.data as AssistantData | ThinkingData;
      run.events[run.events.length - 1] = { ...event, data: { ...b, delta: a.delta + b.delta } };
    } else {
      run.events.push(event);
    }
  };

  /** The run of `sessionKey` that is streaming now (started, not ended), if any. */
  snapshot(sessionKey: string): ActiveRunSnapshot | null {
    for (const run of this.runs.values()) {
      if (run.sessionKey !== sessionKey || !run.started) continue;
      return { runId: run.runId, message: run.message, acceptedAt: run.acceptedAt, events: [...run.events] };
    }
    return null;
  }

  /** Forgets a run that ended without a lifecycle end (e.g. refused before it started). */
  forget(runId: string): void {
    this.runs.delete(runId);
  }

  sessionKeys(): Set<string> {
    return new Set([...this.runs.values()].map((r) => r.sessionKey));
  }
}
