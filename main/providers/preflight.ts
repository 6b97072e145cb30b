/**
 * A StreamFn wrapper for work done once before a model call — check it, rewrite its request — that then hands the
 * caller the inner stream's own iterator: no step of its own per streamed event. (An async generator with `yield*`
 * costs an await and its promises per event; on a 100 000-delta reply two such wrappers were a third of the
 * engine's CPU.)
 *
 * `before` resolves to the request to send, or to the one terminal event that ends the call without a request (the
 * StreamFn contract: never throw, exactly one terminal event). It must not reject.
 */
import type { ProviderEvent, StreamFn, StreamRequest } from './types.js';

export function preflight(inner: StreamFn, before: (req: StreamRequest) => Promise<StreamRequest | ProviderEvent>): StreamFn {
  return (req) => ({
    [Symbol.asyncIterator]: (): AsyncIterator<ProviderEvent> => {
      let it: AsyncIterator<ProviderEvent> | undefined;
      let ended = false;
      const done = (): Promise<IteratorResult<ProviderEvent>> => Promise.resolve({ done: true, value: undefined });
      const start = async (): Promise<IteratorResult<ProviderEvent>> => {
        const r = await before(req);
        if (ended) return { done: true, value: undefined }; // closed while it was checking
        if ('type' in r) {
          ended = true;
          return { done: false, value: r };
        }
        it = inner(r)[Symbol.asyncIterator]();
        return it.next();
      };
      return {
        next: () => (it ? it.next() : ended ? done() : start()),
        return: (value?: unknown) => {
          ended = true;
          return it?.return ? it.return(value) : done();
        },
      };
    },
  });
}
