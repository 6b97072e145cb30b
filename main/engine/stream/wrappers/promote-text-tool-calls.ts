/**
 * Promote a standalone text tool call (E9): some models (often local ones behind OpenAI-compatible servers) write
 * the tool call as JSON text instead of using the API's tool-call channel — `{"name":"read","arguments":{…}}`,
 * optionally in a ```json fence or a `<tool_call>` wrapper. When a message's whole text is exactly one such call to
 * an OFFERED tool, and the message has no native tool call, the text becomes a real tool call.
 *
 * Streaming: text that could still become such a call (it starts with `{`, a fence or `<tool_call>`) is held back
 * until the message ends; anything else passes through at once.
 *
 * Runs AFTER sanitising, because it needs the sanitiser's verdicts: a message whose only native call is malformed
 * (a blank name — some local servers emit an empty tool-call delta next to the call written as text) still has
 * its text call promoted, and the malformed one is answered with an error. In the other order this layer would
 * see "a native call exists" and leave the intended call as text. It promotes nothing but allow-listed names
 * (see the order tests in stream-wrappers.test.ts).
 */
import type { AssistantMessage } from '../../messages.js';
import type { ProviderEvent } from '../../../providers/types.js';
import { eventLayer, type Mapped, type StreamLayer } from './layer.js';
import { allowedName, type ToolNameOptions } from './types.js';

export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const FENCE = /^```[A-Za-z]*\s*\n?([\s\S]*?)\n?```$/;
const WRAPPER = /^<tool_call>\s*([\s\S]*?)\s*<\/tool_call>$/;

function argsOf(v: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return {};
  if (isObject(v)) return v;
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      return isObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The call a whole message text stands for, or undefined (not JSON, not one object, not an offered tool). */
export function parseStandaloneToolCall(text: string, allowed: readonly string[]): TextToolCall | undefined {
  let body = text.trim();
  body = FENCE.exec(body)?.[1]?.trim() ?? body;
  body = WRAPPER.exec(body)?.[1]?.trim() ?? body;
  if (!body.startsWith('{') || !body.endsWith('}')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const fn = isObject(value.function) ? value.function : value;
  const rawName = [fn.name, value.tool, value.tool_name].find((n): n is string => typeof n === 'string');
  if (rawName === undefined) return undefined;
  const name = allowedName(allowed, rawName);
  if (name === undefined) return undefined;
  const args = argsOf(fn.arguments ?? fn.parameters ?? fn.args ?? fn.input);
  if (args === undefined) return undefined;
  // Only the call's own keys: an object with more content is an answer that happens to be JSON.
  const known = new Set(['name', 'tool', 'tool_name', 'function', 'type', 'id', 'arguments', 'parameters', 'args', 'input']);
  if (Object.keys(value).some((k) => !known.has(k))) return undefined;
  return { name, arguments: args };
}

/** True while `soFar` (the message text streamed so far) could still turn out to be a standalone call. */
export function couldBeTextToolCall(soFar: string): boolean {
  const t = soFar.trimStart();
  if (t === '') return true;
  if (t.startsWith('{') || t.startsWith('```') || t.startsWith('<tool_call>')) return true;
  return '```'.startsWith(t) || '<tool_call>'.startsWith(t);
}

export function promoteTextToolCallsLayer(opts: ToolNameOptions & { newId: () => string }): StreamLayer {
  return eventLayer(() => {
    let mode: 'deciding' | 'pass' = 'deciding';
    let held: Extract<ProviderEvent, { type: 'text_delta' }>[] = [];
    const invalidIds = new Set<string>();
    const release = (): ProviderEvent[] => {
      mode = 'pass';
      const out = held;
      held = [];
      return out;
    };
    const promote = (message: AssistantMessage): { events: ProviderEvent[]; message: AssistantMessage } | undefined => {
      // A native call that will run wins; one the sanitiser marked invalid does not stand in the way.
      if (message.content.some((b) => b.type === 'toolCall' && !invalidIds.has(b.id))) return undefined;
      const textIndexes = message.content.flatMap((b, i) => (b.type === 'text' ? [i] : []));
      if (textIndexes.length !== 1) return undefined;
      const index = textIndexes[0]!;
      const block = message.content[index]!;
      if (block.type !== 'text') return undefined;
      const call = parseStandaloneToolCall(block.text, opts.allowed);
      if (!call) return undefined;
      const id = opts.newId();
      const content = [...message.content];
      content[index] = { type: 'toolCall', id, name: call.name, arguments: call.arguments };
      return {
        message: { ...message, content, stopReason: 'toolUse' },
        events: [
          { type: 'toolcall_start', index, id, name: call.name },
          { type: 'toolcall_delta', index, delta: JSON.stringify(call.arguments) },
          { type: 'toolcall_end', index, id, name: call.name, arguments: call.arguments },
        ],
      };
    };
    return (event): Mapped => {
      if (mode === 'pass') return event;
      switch (event.type) {
        case 'text_delta': {
          held.push(event);
          return couldBeTextToolCall(held.map((e) => e.delta).join('')) ? [] : release();
        }
        case 'toolcall_end':
          if (event.invalid !== undefined) invalidIds.add(event.id);
          return event;
        case 'done': {
          const promoted = promote(event.message);
          if (!promoted) return [...release(), event];
          held = [];
          mode = 'pass';
          return [...promoted.events, { ...event, stopReason: 'toolUse', message: promoted.message }];
        }
        case 'error':
          return [...release(), event];
        default:
          return event;
      }
    };
  });
}
