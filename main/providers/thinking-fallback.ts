/**
 * E21: a provider that rejects the requested thinking level gets one retry a level lower. Wraps a StreamFn: when
 * the call fails before anything streamed with an error classified as a thinking-level rejection
 * (classify.ts isThinkingLevelRejected), the same request is sent once more with `lowerThinkingLevel`. The
 * failed call never reaches the caller, so the transcript holds only the retried call.
 */
import { isThinkingLevelRejected } from '../engine/classify.js';
import { lowerThinkingLevel } from './thinking.js';
import type { StreamFn } from './types.js';

export function withThinkingFallback(fn: StreamFn): StreamFn {
  return async function* thinkingFallback(req) {
    if (req.thinking === 'off') return yield* fn(req);
    const it = fn(req)[Symbol.asyncIterator]();
    try {
      const first = await it.next();
      if (first.done) return;
      const e = first.value;
      if (e.type === 'error' && !req.signal.aborted && isThinkingLevelRejected(e.error)) {
        return yield* fn({ ...req, thinking: lowerThinkingLevel(req.thinking) });
      }
      yield e;
      for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
    } finally {
      await it.return?.();
    }
  };
}
