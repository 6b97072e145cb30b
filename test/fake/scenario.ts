/**
 * toolLoopScenario: a request handler for CLI/e2e tests that asks for one tool call, then answers with final
 * text once the tool result comes back. Reads the Anthropic, OpenAI Chat and OpenAI Responses request shapes.
 */
import { trailingFunctionOutputs } from './openai-responses.js';
import type { FakeTurn, RecordedRequest } from './types.js';

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => (p && typeof p === 'object' && typeof (p as Json).text === 'string' ? ((p as Json).text as string) : ''))
    .join('');
}

/** The system prompt of a request: Anthropic `system` (string or text blocks), OpenAI leading system/developer message. */
export function systemText(req: RecordedRequest): string {
  const b = req.body ?? {};
  if (b.system !== undefined) return textOf(b.system);
  const first = Array.isArray(b.messages) ? (b.messages[0] as Json | undefined) : undefined;
  return first && (first.role === 'system' || first.role === 'developer') ? textOf(first.content) : '';
}

/** A context-compaction summary request (the engine marks its system prompt). */
export const isSummaryRequest = (req: RecordedRequest): boolean => systemText(req).includes('[context compaction]');

/** The text of the last user message (tool results excluded). */
export function lastUserText(req: RecordedRequest): string {
  const messages: unknown = req.body?.messages;
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Json;
    if (m.role === 'user') return textOf(m.content);
  }
  return '';
}

/**
 * The text of the tool results at the end of the conversation, or null when the last message is not a tool result.
 * Anthropic: a trailing user message holding `tool_result` blocks. OpenAI: trailing `role:"tool"` messages.
 */
export function trailingToolResults(req: RecordedRequest): string | null {
  if (Array.isArray(req.body?.input)) return trailingFunctionOutputs(req); // OpenAI Responses
  let messages: unknown = req.body?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return null;
  // OpenAI Chat: the images of tool results follow the `tool` messages as one user message (X3).
  const tail = messages[messages.length - 1] as Json;
  if (tail.role === 'user' && Array.isArray(tail.content) && textOf(tail.content).startsWith('The images the tool results above returned')) {
    messages = messages.slice(0, -1);
  }
  if (!Array.isArray(messages)) return null;
  const last = messages[messages.length - 1] as Json;
  if (last.role === 'user' && Array.isArray(last.content)) {
    const results = (last.content as Json[]).filter((b) => b && b.type === 'tool_result');
    return results.length > 0 ? results.map((b) => textOf(b.content)).join('\n') : null;
  }
  if (last.role === 'tool') {
    const texts: string[] = [];
    for (let i = messages.length - 1; i >= 0 && (messages[i] as Json).role === 'tool'; i--) {
      texts.unshift(textOf((messages[i] as Json).content));
    }
    return texts.join('\n');
  }
  return null;
}

export function toolLoopScenario(opts: {
  toolName: string;
  args: Record<string, unknown>;
  finalText: string | ((toolResult: string) => string);
  thinking?: string;
}): (req: RecordedRequest) => FakeTurn {
  return (req) => {
    const result = trailingToolResults(req);
    const thinking = opts.thinking !== undefined ? { thinking: opts.thinking } : {};
    if (result === null) return { ...thinking, toolCalls: [{ name: opts.toolName, arguments: opts.args }] };
    const text = typeof opts.finalText === 'function' ? opts.finalText(result) : opts.finalText;
    return { ...thinking, text };
  };
}
