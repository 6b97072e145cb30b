/**
 * An in-memory StreamFn for engine unit tests: each call plays the next scripted turn as normalised provider
 * events (the same contract the real providers honour). Provider/SDK behaviour itself is tested against the
 * fake HTTP servers in test/fake; this only isolates the engine's own logic.
 */
import type { AssistantBlock, AssistantMessage, StopReason, Usage } from '../../main/engine/messages.js';
import type { ProviderEvent, StreamFn, StreamRequest } from '../../main/providers/types.js';

export interface ScriptedTurn {
  thinking?: string[];
  text?: string[];
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown>; parseError?: string }[];
  usage?: Partial<Usage>;
  /** End with an error event after the content (stopReason 'error'). */
  error?: Error;
  /** Text the terminal message carries in addition to the streamed deltas (a provider re-sending the full text). */
  finalTextOverride?: string;
  /** Wait for this promise before finishing (to test aborts and waits). */
  hold?: Promise<void>;
}

export function scriptedStream(turns: ScriptedTurn[]): StreamFn & { requests: StreamRequest[] } {
  const requests: StreamRequest[] = [];
  const fn = async function* (req: StreamRequest): AsyncGenerator<ProviderEvent> {
    requests.push({ ...req, messages: structuredClone(req.messages) });
    const turn = turns.shift() ?? { text: ['(no more scripted turns)'] };
    const content: AssistantBlock[] = [];
    yield { type: 'message_start' };
    let index = 0;
    if (turn.thinking) {
      for (const d of turn.thinking) yield { type: 'thinking_delta', index, delta: d };
      content.push({ type: 'thinking', thinking: turn.thinking.join('') });
      index++;
    }
    if (turn.text) {
      for (const d of turn.text) yield { type: 'text_delta', index, delta: d };
      content.push({ type: 'text', text: turn.finalTextOverride ?? turn.text.join('') });
      index++;
    }
    for (const call of turn.toolCalls ?? []) {
      yield { type: 'toolcall_start', index, id: call.id, name: call.name };
      yield { type: 'toolcall_delta', index, delta: JSON.stringify(call.arguments) };
      yield {
        type: 'toolcall_end',
        index,
        id: call.id,
        name: call.name,
        arguments: call.parseError ? {} : call.arguments,
        ...(call.parseError ? { parseError: call.parseError } : {}),
      };
      content.push({ type: 'toolCall', id: call.id, name: call.name, arguments: call.parseError ? {} : call.arguments });
      index++;
    }
    if (turn.hold) {
      await Promise.race([
        turn.hold,
        new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve(), { once: true })),
      ]);
    }
    const u = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...turn.usage };
    const usage: Usage = { ...u, total: u.input + u.output + u.cacheRead + u.cacheWrite } as Usage;
    const stopReason: StopReason = req.signal.aborted
      ? 'aborted'
      : turn.error
        ? 'error'
        : turn.toolCalls?.length
          ? 'toolUse'
          : 'stop';
    const message: AssistantMessage = {
      role: 'assistant',
      content,
      provider: req.model.provider,
      model: req.model.id,
      api: req.model.api,
      usage,
      stopReason,
      timestamp: 0,
    };
    yield { type: 'usage', usage };
    if (req.signal.aborted) {
      const err = new Error('aborted');
      err.name = 'AbortError';
      yield { type: 'error', error: err, message: { ...message, errorMessage: 'aborted' } };
    } else if (turn.error) {
      yield { type: 'error', error: turn.error, message: { ...message, errorMessage: turn.error.message } };
    } else {
      yield { type: 'done', stopReason: stopReason as 'stop' | 'toolUse', message };
    }
  };
  return Object.assign(fn, { requests });
}
