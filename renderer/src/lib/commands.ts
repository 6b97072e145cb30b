/**
 * The slash commands the composer offers (issue 18 item 14): typing `/` lists them with a line each. The gateway
 * owns what they do (a command is sent like a message and answered by the engine); `/help` is the window's own
 * (it opens the list of commands and keys).
 */
export interface SlashCommand {
  name: string;
  /** Shown after the name when it takes an argument. */
  args?: string;
  description: string;
  /** The argument's choices, offered once the command is typed ('models' and 'levels' come from the app). */
  choices?: 'models' | 'levels' | readonly string[];
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'new', description: 'Start a new chat (the current one stays in the list).' },
  { name: 'reset', description: 'Start this chat over; the old conversation stays in the list and can be searched.' },
  { name: 'compact', description: 'Summarise the older part of this conversation now, to free context.' },
  { name: 'stop', description: 'Stop the reply that is running.' },
  { name: 'model', args: '<provider/model>', description: "Switch this chat's model.", choices: 'models' },
  { name: 'think', args: '<level>', description: 'Set how much the model thinks: off, minimal, low, medium or high.', choices: 'levels' },
  { name: 'verbose', args: '[on|off]', description: 'Show tool summaries and reasoning in replies, or stop showing them.', choices: ['on', 'off'] },
  { name: 'status', description: 'Say which model, thinking level and context this chat uses.' },
  { name: 'help', description: 'Show the commands and keyboard shortcuts.' },
];

/** What the menu shows for the text in the box: commands matching the word typed, or one command's choices. */
export type SlashMenuState =
  | { kind: 'commands'; items: SlashCommand[] }
  | { kind: 'choices'; command: SlashCommand; prefix: string }
  | undefined;

export function slashMenuFor(text: string): SlashMenuState {
  if (!text.startsWith('/') || text.includes('\n')) return undefined;
  const space = text.indexOf(' ');
  if (space === -1) {
    const word = text.slice(1).toLowerCase();
    const items = SLASH_COMMANDS.filter((c) => c.name.startsWith(word));
    return items.length > 0 ? { kind: 'commands', items } : undefined;
  }
  const command = SLASH_COMMANDS.find((c) => c.name === text.slice(1, space).toLowerCase());
  if (!command?.choices) return undefined;
  const prefix = text.slice(space + 1);
  if (prefix.includes(' ')) return undefined;
  return { kind: 'choices', command, prefix };
}
