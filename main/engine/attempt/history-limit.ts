/**
 * E22 history limit by turns (`agent.historyTurns`, or a session's own `historyTurns`): only the last N turns of a
 * session are sent — a turn starts at a message the person sent (a steered message joins the turn it was steered
 * into). Pure: the transcript keeps everything; this only shapes what a request carries. The cut is made before
 * the pairing repair (attempt.ts buildContext), which runs after it, so a tool result whose call was cut off can
 * never be sent alone.
 */
import type { Message } from '../messages.js';

/** The messages from the start of the last `turns` turns (all of them when `turns` is undefined or not below the count). */
export function limitHistoryTurns<T extends Message>(messages: readonly T[], turns: number | undefined): T[] {
  if (turns === undefined || !(turns > 0)) return [...messages];
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user' || m.steered) continue;
    seen++;
    if (seen === turns) return messages.slice(i);
  }
  return [...messages];
}
