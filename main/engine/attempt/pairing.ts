/**
 * E11: tool_use / tool_result pairing repair, run on a copy of the history before every send.
 * Providers reject a history where a tool call has no result right after it, or a result answers no call.
 * Rules (OpenClaw `sanitizeToolUseResultPairing`, inventory §11 / §21 item 7, which fixed real bugs):
 *
 * - Each assistant message with tool calls forms a frame. Its results move directly after it, in call order,
 *   ahead of any user text that slipped in between (that text follows the results).
 * - A result belongs to the most recent preceding assistant message that made a call with its id (local servers
 *   reuse ids such as `call_0` across turns). A result with no such call is an orphan and is dropped — also one
 *   that appears before its call.
 * - Duplicate results for one call: the first real one is kept; a real result beats a synthetic one.
 * - A call with no result gets a synthetic `isError: true` result (`missingResultText`, default "aborted",
 *   the placeholder OpenAI Responses expects).
 * - An assistant whose stopReason is 'error' or 'aborted' gets NO synthetic results, and its results are dropped.
 *   Its calls were cut off mid-stream (often with partial JSON) and never ran; answering them made providers
 *   answer every later request with a permanent 400 "unexpected tool_use_id" (OpenClaw #9769, #12112, #14322,
 *   #50059). Such turns are best left out of the request entirely (attempt.ts `buildContext` does); this
 *   function leaves the message itself untouched.
 * - A legacy result without an id attaches to the latest frame when that frame has exactly one call.
 *
 * Pure: returns a new array; input messages are not mutated (unchanged messages are reused).
 */
import type { AssistantMessage, Message, ToolCallBlock, ToolResultMessage } from '../messages.js';
import { toolCallsOf } from '../messages.js';

export const DEFAULT_MISSING_RESULT_TEXT = 'aborted';
/** A more descriptive placeholder callers may pass as `missingResultText`. */
export const MISSING_TOOL_RESULT_TEXT = '[agentdesk] missing tool result — the call was interrupted';

/**
 * The placeholder for a call without a result: OpenAI Responses expects "aborted" (inventory §11); the other APIs
 * get the descriptive text, which tells the model what happened.
 */
export function missingResultTextFor(api: string): string {
  return api === 'openai-responses' ? DEFAULT_MISSING_RESULT_TEXT : MISSING_TOOL_RESULT_TEXT;
}

export interface RepairToolPairingOptions {
  missingResultText?: string;
}

interface Frame {
  assistant: AssistantMessage;
  calls: ToolCallBlock[];
  failed: boolean;
  results: Map<string, ToolResultMessage>;
}

const isFailed = (m: AssistantMessage): boolean => m.stopReason === 'error' || m.stopReason === 'aborted';

export function repairToolPairing(messages: readonly Message[], opts: RepairToolPairingOptions = {}): Message[] {
  const missingText = opts.missingResultText ?? DEFAULT_MISSING_RESULT_TEXT;
  const syntheticTexts = new Set([missingText, DEFAULT_MISSING_RESULT_TEXT, MISSING_TOOL_RESULT_TEXT]);
  const looksSynthetic = (r: ToolResultMessage): boolean => r.isError && syntheticTexts.has(r.content);

  // Pass 1: give every result to its frame.
  const frames = new Map<AssistantMessage, Frame>();
  const latestFrameForId = new Map<string, Frame>();
  let latestFrame: Frame | undefined;
  for (const m of messages) {
    if (m.role === 'assistant') {
      const calls = toolCallsOf(m);
      if (calls.length === 0) continue;
      const frame: Frame = { assistant: m, calls, failed: isFailed(m), results: new Map() };
      frames.set(m, frame);
      for (const c of calls) latestFrameForId.set(c.id, frame);
      latestFrame = frame;
    } else if (m.role === 'toolResult') {
      let id = m.toolCallId;
      let result = m;
      if (id === '' && latestFrame?.calls.length === 1) {
        id = latestFrame.calls[0]!.id;
        result = { ...m, toolCallId: id };
      }
      const frame = latestFrameForId.get(id);
      if (!frame) continue; // orphan
      const existing = frame.results.get(id);
      if (!existing || (looksSynthetic(existing) && !looksSynthetic(result))) frame.results.set(id, result);
    }
  }

  // Pass 2: rebuild, results right after their frame, user text after that.
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === 'toolResult') continue; // re-emitted with its frame, or dropped
    out.push(m);
    if (m.role !== 'assistant') continue;
    const frame = frames.get(m);
    if (!frame || frame.failed) continue;
    const seen = frame.calls.length > 1 ? new Set<string>() : undefined;
    for (const call of frame.calls) {
      if (seen) {
        if (seen.has(call.id)) continue;
        seen.add(call.id);
      }
      out.push(
        frame.results.get(call.id) ?? {
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.name,
          content: missingText,
          isError: true,
          timestamp: m.timestamp,
        },
      );
    }
  }
  return out;
}
