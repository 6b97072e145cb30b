/**
 * The words the window uses for settings the engine names with jargon (issue 18 item 12): queue modes and thinking
 * levels said as what they do, one list each, no duplicates.
 */
import type { QueueMode, ThinkingLevel } from '../../../preload/contract.js';

/** What happens to a message sent while a reply is running. */
export const QUEUE_MODES: readonly { mode: QueueMode; label: string; short: string; hint: string }[] = [
  { mode: 'followup', label: 'Send it after the current reply', short: 'after this reply', hint: 'It waits, then runs as its own turn.' },
  { mode: 'collect', label: 'Merge the messages sent meanwhile into one', short: 'merged', hint: 'Messages sent while a reply runs are joined and sent as one turn after it.' },
  { mode: 'steer', label: 'Steer the current reply with it', short: 'steers the reply', hint: 'The running reply gets it at its next step; otherwise it is sent after.' },
  { mode: 'interrupt', label: 'Stop the current reply and send it', short: 'interrupts', hint: 'The running reply stops; the new message runs at once.' },
];

export const queueModeShort = (mode: QueueMode | undefined): string => QUEUE_MODES.find((q) => q.mode === (mode ?? 'followup'))!.short;

export const THINKING_LEVELS: readonly { level: ThinkingLevel; label: string }[] = [
  { level: 'off', label: 'Off' },
  { level: 'minimal', label: 'Minimal' },
  { level: 'low', label: 'Low' },
  { level: 'medium', label: 'Medium' },
  { level: 'high', label: 'High' },
];

export const thinkingLabel = (level: ThinkingLevel): string => THINKING_LEVELS.find((t) => t.level === level)!.label;
