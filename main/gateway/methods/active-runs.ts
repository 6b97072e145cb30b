/**
 * Remembers the events of every run that has not ended yet, so a window that reloads (or opens the session) mid-run
 * can replay them and show ONE turn that keeps streaming. Consecutive text/thinking deltas of one turn are merged
 * into one event (the last seq, the joined delta): memory grows with the text, not with the number of chunks.
 * The merged event is only built when it is needed (a replay, or the streak ends): a delta costs no allocation.
 */
import type { ActiveRunSnapshot, AgentEvent, AssistantData, ThinkingData } from '../../../preload/contract.js';
import { TextParts } from '../../engine/stream/text-parts.js';

interface Tracked {
  runId: string;
  sessionKey: string;
  message: string;
  acceptedAt: number;
  started: boolean;
  events: AgentEvent[];
  /** The streak of mergeable events after `events`: its latest event and the joined delta. */
  streak?: Streak;
}

interface Streak {
  last: AgentEvent;
  delta: TextParts;
  /** More than one event joined (otherwise `last` itself is the merged event). */
  merged: boolean;
}

const isDelta = (e: AgentEvent): boolean => e.stream === 'assistant' || e.stream === 'thinking';

/** The one event a streak stands for: the last seq, the joined delta. */
function mergedEvent(s: Streak): AgentEvent {
  if (!s.merged) return s.last;
  return { ...s.last, data: { ...(s.last.data as AssistantData | ThinkingData), delta: s.delta.text } };
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
    const streak = run.streak;
    if (streak && mergeable(streak.last, event)) {
      streak.delta.push((event.data as AssistantData | ThinkingData).delta);
      streak.last = event;
      streak.merged = true;
      return;
    }
    if (streak) run.events.push(mergedEvent(streak));
    run.streak = undefined;
    if (isDelta(event)) {
      const delta = new TextParts();
      delta.push((event.data as AssistantData | ThinkingData).delta);
      run.streak = { last: event, delta, merged: false };
    }
    else run.events.push(event);
  };

  /** The run of `sessionKey` that is streaming now (started, not ended), if any. */
  snapshot(sessionKey: string): ActiveRunSnapshot | null {
    for (const run of this.runs.values()) {
      if (run.sessionKey !== sessionKey || !run.started) continue;
      const events = run.streak ? [...run.events, mergedEvent(run.streak)] : [...run.events];
      return { runId: run.runId, message: run.message, acceptedAt: run.acceptedAt, events };
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
