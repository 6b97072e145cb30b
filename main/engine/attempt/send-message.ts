/**
 * The `send_message` tool (E16): the model posts an interim message to the chat while it keeps working ("Found
 * it, now fixing the test…"). The message is shown at once — an `assistant` event with `interim: true`, which the
 * UI renders as its own paragraph and the plain CLI prints — and becomes a payload of the run. Its text is recorded
 * two-phase in a MessagingLedger (pending at tool start, committed only if the tool succeeded), so a final reply
 * that merely repeats it is not delivered twice.
 */
import type { Tool } from '../../tools/types.js';
import { ToolError } from '../../tools/types.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import { MessagingLedger } from '../stream/messaging-dedupe.js';

export const SEND_MESSAGE_TOOL = 'send_message';
export const MAX_MESSAGE_CHARS = 4000;

export interface Messaging {
  tool: Tool;
  ledger: MessagingLedger;
  /** Called by the attempt before each tool runs: the call id and arguments (phase one of the dedupe). */
  beforeTool(toolCallId: string, name: string, args: Record<string, unknown>): void;
  /** Called after the tool ran (phase two: commit on success). */
  afterTool(toolCallId: string, name: string, isError: boolean): void;
}

export function messageTextOf(args: Record<string, unknown>): string | undefined {
  const text = args.text ?? args.message ?? args.content;
  return typeof text === 'string' ? text : undefined;
}

export function createMessaging(opts: {
  emitter: RunEmitter;
  /** The turn index the message belongs to (the model call that asked for it). */
  turn: () => number;
  /** Records a delivered text (becomes a payload). */
  deliver: (text: string) => void;
  /** The run's ledger (default: a new one): what earlier attempts posted counts for dedupe too. */
  ledger?: MessagingLedger;
}): Messaging {
  const ledger = opts.ledger ?? new MessagingLedger();
  const tool: Tool = {
    name: SEND_MESSAGE_TOOL,
    mutating: false,
    description:
      'Post a short message to the user now, while you keep working (progress, a question, a partial result). ' +
      'Do not repeat it in your final answer.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The message, in Markdown.' } },
      required: ['text'],
      additionalProperties: false,
    },
    async execute(args) {
      const text = messageTextOf(args)?.trim();
      if (!text) throw new ToolError('send_message needs a non-empty "text".');
      if (text.length > MAX_MESSAGE_CHARS) throw new ToolError(`The message is longer than ${MAX_MESSAGE_CHARS} characters; shorten it.`);
      opts.emitter.emit('assistant', { delta: `${text}\n\n`, text, turn: opts.turn(), interim: true });
      opts.deliver(text);
      return { content: 'Message posted.' };
    },
  };
  return {
    tool,
    ledger,
    beforeTool(id, name, args) {
      const text = name === SEND_MESSAGE_TOOL ? messageTextOf(args) : undefined;
      if (text !== undefined) ledger.begin(id, text);
    },
    afterTool(id, name, isError) {
      if (name === SEND_MESSAGE_TOOL) ledger.end(id, !isError);
    },
  };
}
