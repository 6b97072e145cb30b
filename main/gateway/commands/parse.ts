/**
 * Commands the engine owns (E22, E19): `/new`, `/reset`, `/stop`, `/compact`, `/model <ref>`, `/think <level>`,
 * `/verbose on|off` and `/status`, typed as a message in the chat, the CLI (`--message /stop`) or the web UI. The
 * gateway answers them itself; they never reach the model. Pure parsing here (table-tested).
 *
 * Only a message that is exactly one of these words (any case), alone or followed by white space and its argument,
 * is a command. Anything else starting with "/" is an ordinary message — people paste paths (`/usr/bin/env`,
 * `/new/file.txt`) and ask about them.
 */
import { tryParseModelRef } from '../../engine/models.js';
import type { ThinkingLevel } from '../../providers/types.js';

export const COMMAND_NAMES = ['new', 'reset', 'stop', 'compact', 'model', 'think', 'verbose', 'status'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

const THINKING: readonly ThinkingLevel[] = ['off', 'minimal', 'low', 'medium', 'high'];

export type Command =
  | { name: 'new' | 'reset' | 'stop' | 'compact' | 'status' }
  /** Without `ref`: show the session's model. */
  | { name: 'model'; ref?: string }
  | { name: 'think'; level?: ThinkingLevel }
  | { name: 'verbose'; on?: boolean };

export type ParsedCommand =
  | { kind: 'command'; command: Command }
  /** One of the commands, with an argument it does not take: answered with how to use it (still not sent on). */
  | { kind: 'invalid'; name: CommandName; message: string };

export const COMMAND_USAGE: Record<CommandName, string> = {
  new: '/new — start a new session',
  reset: '/reset — start this session over (the old transcript stays on disk)',
  stop: '/stop — stop the reply that is running in this session (and the messages queued behind it)',
  compact: '/compact — summarise the older turns now',
  model: '/model PROVIDER/MODEL — the model for the next turns (/model alone shows it)',
  think: `/think LEVEL — ${THINKING.join(', ')} (/think alone shows it)`,
  verbose: '/verbose on|off — add reasoning and tool summaries to the replies (/verbose alone shows it)',
  status: '/status — the session: model, thinking, verbose, context used and billed tokens',
};

/** The command in `message`, or undefined when the message is ordinary text. */
export function parseCommand(message: string): ParsedCommand | undefined {
  const m = /^\/([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(message.trim());
  if (!m) return undefined;
  const name = m[1]!.toLowerCase() as CommandName;
  if (!(COMMAND_NAMES as readonly string[]).includes(name)) return undefined;
  const arg = (m[2] ?? '').trim();
  const invalid = (why: string): ParsedCommand => ({ kind: 'invalid', name, message: `${why}. Usage: ${COMMAND_USAGE[name]}` });
  switch (name) {
    case 'model':
      if (!arg) return { kind: 'command', command: { name } };
      if (/\s/.test(arg) || !tryParseModelRef(arg)) return invalid(`"${arg}" is not a model reference like anthropic/claude-sonnet-4-5`);
      return { kind: 'command', command: { name, ref: arg } };
    case 'think': {
      if (!arg) return { kind: 'command', command: { name } };
      const level = arg.toLowerCase();
      if (!(THINKING as readonly string[]).includes(level)) return invalid(`"${arg}" is not a thinking level`);
      return { kind: 'command', command: { name, level: level as ThinkingLevel } };
    }
    case 'verbose': {
      if (!arg) return { kind: 'command', command: { name } };
      const v = arg.toLowerCase();
      if (v !== 'on' && v !== 'off') return invalid(`"${arg}" is neither on nor off`);
      return { kind: 'command', command: { name, on: v === 'on' } };
    }
    default:
      if (arg) return invalid(`/${name} takes no argument`);
      return { kind: 'command', command: { name } };
  }
}
