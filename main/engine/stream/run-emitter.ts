/**
 * Per-run event sink (E14): stamps every event with the runId and a gapless seq starting at 0, and fans it out.
 * A listener that throws is isolated: it can never break the run or starve other listeners.
 */
import type { AgentEvent, StreamName } from '../../../preload/contract.js';

export type EventListener = (event: AgentEvent) => void;

export interface RunEmitter {
  readonly runId: string;
  emit(stream: StreamName, data: AgentEvent['data']): void;
  /** Number of events emitted so far (= the next seq). */
  readonly count: number;
}

export function createRunEmitter(
  runId: string,
  sessionKey: string,
  sink: EventListener,
  now: () => number = Date.now,
): RunEmitter {
  let seq = 0;
  return {
    runId,
    get count() {
      return seq;
    },
    emit(stream, data) {
      const event: AgentEvent = { type: 'event', runId, sessionKey, seq: seq++, stream, data, ts: now() };
      try {
        sink(event);
      } catch (err) {
        // A broken listener must not break the run (OpenClaw: handler errors are logged and swallowed).
        console.error(`[agentdesk] event listener failed: ${(err as Error)?.message ?? err}`);
      }
    },
  };
}

/** A fan-out list of listeners. */
export class EventHub {
  private readonly listeners = new Set<EventListener>();

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  readonly emit = (event: AgentEvent): void => {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        console.error(`[agentdesk] event listener failed: ${(err as Error)?.message ?? err}`);
      }
    }
  };
}
