/** Helpers shared by both wire formats: argument text, stop reason, default token counts. */
import { estimateTokens } from './sse.js';
import type { FakeToolCall, FakeTurn, RecordedRequest } from './types.js';

export const argsText = (call: FakeToolCall): string =>
  typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);

/** Arguments as an object for non-streaming bodies (invalid raw JSON becomes {}). */
export function argsObject(call: FakeToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments;
  try {
    return JSON.parse(call.arguments);
  } catch {
    return {};
  }
}

export const stopOf = (turn: FakeTurn): NonNullable<FakeTurn['stopReason']> =>
  turn.stopReason ?? (turn.toolCalls && turn.toolCalls.length > 0 ? 'toolUse' : 'stop');

/** Default prompt size: the request's messages, system and tools at chars/4. */
export function promptTokens(req: RecordedRequest): number {
  const b = req.body ?? {};
  return estimateTokens(JSON.stringify([b.system ?? '', b.messages ?? [], b.tools ?? []]));
}

/** Default output size: thinking + text + tool calls at chars/4. */
export function outputTokens(turn: FakeTurn): number {
  const calls = (turn.toolCalls ?? []).map((c) => c.name + argsText(c)).join('');
  return estimateTokens((turn.thinking ?? '') + (turn.text ?? '') + calls);
}

export const modelOf = (req: RecordedRequest, fallback: string): string =>
  typeof req.body?.model === 'string' ? req.body.model : fallback;

export function headerOf(req: RecordedRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export const jsonReply = (body: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
