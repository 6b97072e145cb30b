/**
 * E21: a provider that rejects the requested thinking level gets one retry a level lower. Wraps a StreamFn: when
 * the call fails before anything streamed with an error classified as a thinking-level rejection
 * (classify.ts isThinkingLevelRejected), the same request is sent once more with `lowerThinkingLevel`. The
 * failed call never reaches the caller, so the transcript holds only the retried call.
 *
 * A plain iterator object, not an async generator: after the first event every `next` is the inner stream's
 * own, so the wrapper costs nothing per streamed delta.
 */
import { isThinkingLevelRejected } from '../engine/classify.js';
import { lowerThinkingLevel } from './thinking.js';
import type { ProviderEvent, StreamFn } from './types.js';

export function withThinkingFallback(fn: StreamFn): StreamFn {
  return function thinkingFallback(req) {
    if (req.thinking === 'off') return fn(req);
    return {
      [Symbol.asyncIterator]: () => {
        let it = fn(req)[Symbol.asyncIterator]();
        let first = true;
        return {
          next: (): Promise<IteratorResult<ProviderEvent>> => {
            if (!first) return it.next();
            first = false;
            return it.next().then(async (r) => {
              if (r.done || r.value.type !== 'error' || req.signal.aborted || !isThinkingLevelRejected(r.value.error)) return r;
              await it.return?.();
              it = fn({ ...req, thinking: lowerThinkingLevel(req.thinking) })[Symbol.asyncIterator]();
              return it.next();
            });
          },
          return: (value?: unknown): Promise<IteratorResult<ProviderEvent>> =>
            it.return ? it.return(value) : Promise.resolve({ done: true, value: undefined }),
        };
      },
    };
  };
}
