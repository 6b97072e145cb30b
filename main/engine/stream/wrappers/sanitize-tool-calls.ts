/**
 * Sanitise malformed tool calls (E9, inventory §11 `sanitizeToolCallInputs`, §21 item 8). A call without an id
 * gets a generated one; a call with a blank name, a name over 80 characters, characters no provider accepts, or a
 * name that is not on the allow-list is kept in the message (so the model sees what it did) but marked `invalid`:
 * the attempt answers it with an error result instead of running it. Names that could not be sent back to a
 * provider are replaced by a placeholder; the error text keeps the original (shortened).
 *
 * Where the inventory's system drops such calls silently, we answer them: the model learns its call failed and
 * can correct itself, and the transcript stays paired.
 */
import type { AssistantBlock } from '../../messages.js';
import { eventLayer, mapBlocks, type Mapped, type StreamLayer } from './layer.js';
import { INVALID_TOOL_NAME, MAX_TOOL_NAME_LENGTH, allowedName, type ToolNameOptions } from './types.js';

const NAME_CHARS = /^[A-Za-z0-9_.:-]+$/;

export interface ToolCallVerdict {
  id: string;
  /** The name to keep in the message (the original, or the placeholder). */
  name: string;
  /** Why the call is not run, when it is malformed. */
  invalid?: string;
}

const shorten = (s: string, max = 60): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/** Pure judgement of one call. */
export function judgeToolCall(
  call: { id: string; name: string },
  opts: ToolNameOptions & { newId: () => string },
): ToolCallVerdict {
  const id = call.id.trim() || opts.newId();
  const trimmed = call.name.trim();
  const offered = opts.allowed.join(', ') || 'none';
  if (trimmed === '') {
    return { id, name: INVALID_TOOL_NAME, invalid: `The tool call had no tool name. Available tools: ${offered}.` };
  }
  if (trimmed.length > MAX_TOOL_NAME_LENGTH) {
    return {
      id,
      name: INVALID_TOOL_NAME,
      invalid: `The tool name "${shorten(trimmed)}" is longer than ${MAX_TOOL_NAME_LENGTH} characters. Available tools: ${offered}.`,
    };
  }
  if (!NAME_CHARS.test(trimmed)) {
    return { id, name: INVALID_TOOL_NAME, invalid: `"${shorten(trimmed)}" is not a valid tool name. Available tools: ${offered}.` };
  }
  if (allowedName(opts.allowed, trimmed) === undefined) {
    return { id, name: call.name, invalid: `Unknown tool "${trimmed}". Available tools: ${offered}.` };
  }
  return { id, name: call.name };
}

export function sanitizeToolCallsLayer(opts: ToolNameOptions & { newId: () => string }): StreamLayer {
  return eventLayer(() => {
    const byIndex = new Map<number, ToolCallVerdict>();
    const fixBlock = (b: AssistantBlock, index: number): AssistantBlock => {
      if (b.type !== 'toolCall') return b;
      const v = byIndex.get(index) ?? judgeToolCall(b, opts);
      return { ...b, id: v.id, name: v.name };
    };
    return (event): Mapped => {
      switch (event.type) {
        case 'toolcall_start': {
          const v = judgeToolCall(event, opts);
          byIndex.set(event.index, v);
          return { ...event, id: v.id, name: v.name };
        }
        case 'toolcall_end': {
          const v = byIndex.get(event.index) ?? judgeToolCall(event, opts);
          byIndex.set(event.index, v);
          return { ...event, id: v.id, name: v.name, ...(v.invalid ? { invalid: v.invalid } : {}) };
        }
        case 'done':
        case 'error':
          return { ...event, message: mapBlocks(event.message, fixBlock) };
        default:
          return event;
      }
    };
  });
}
