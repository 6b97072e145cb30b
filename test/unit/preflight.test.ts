/** The preflight StreamFn wrapper: work once before a call, then the inner stream's own iterator (no step per event). */
import { describe, expect, it } from 'vitest';
import { preflight } from '../../main/providers/preflight.js';
import type { ProviderEvent, StreamFn, StreamRequest } from '../../main/providers/types.js';

const events: ProviderEvent[] = [{ type: 'message_start' }, { type: 'text_delta', index: 0, delta: 'a' }, { type: 'text_delta', index: 0, delta: 'b' }];
const req = { model: { provider: 'p', id: 'm', api: 'anthropic' }, messages: [] } as unknown as StreamRequest;

function innerSpy() {
  const seen: StreamRequest[] = [];
  let closed = 0;
  let iterators = 0;
  const fn: StreamFn = (r) => {
    seen.push(r);
    return {
      [Symbol.asyncIterator]: () => {
        iterators++;
        let i = 0;
        return {
          next: async () => (i < events.length ? { done: false, value: events[i++]! } : { done: true, value: undefined }),
          return: async () => {
            closed++;
            return { done: true, value: undefined };
          },
        };
      },
    };
  };
  return { fn, seen, closed: () => closed, iterators: () => iterators };
}

const collect = async (it: AsyncIterable<ProviderEvent>) => {
  const out: ProviderEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
};

describe('preflight', () => {
  it('sends the request `before` gives and passes every event on as the inner stream made it', async () => {
    const inner = innerSpy();
    const rewritten = { ...req, systemPrompt: 'changed' };
    const out = await collect(preflight(inner.fn, async () => rewritten)(req));
    expect(out).toEqual(events);
    expect(out[1]).toBe(events[1]); // the same objects: nothing in between
    expect(inner.seen).toEqual([rewritten]);
  });

  it('a terminal event from `before` ends the call with it alone; no request is made', async () => {
    const inner = innerSpy();
    const stop: ProviderEvent = { type: 'error', error: new Error('over budget'), message: {} as never };
    expect(await collect(preflight(inner.fn, async () => stop)(req))).toEqual([stop]);
    expect(inner.iterators()).toBe(0);
  });

  it('closing early closes the inner stream; closing before the first event makes no request', async () => {
    const inner = innerSpy();
    for await (const e of preflight(inner.fn, async (r) => r)(req)) {
      expect(e.type).toBe('message_start');
      break;
    }
    expect(inner.closed()).toBe(1);

    const other = innerSpy();
    const it = preflight(other.fn, async (r) => r)(req)[Symbol.asyncIterator]();
    await it.return!();
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(other.iterators()).toBe(0);
  });
});
