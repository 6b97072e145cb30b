/**
 * Stream wrapper layers (E9): middleware between a provider's StreamFn and the subscriber. A layer takes the next
 * StreamFn and returns a StreamFn with the same contract (never throws, exactly one terminal event). Each layer
 * that changes content changes BOTH the streamed events and the terminal message, so what was shown and what is
 * persisted stay the same text.
 */
import type { AssistantBlock, AssistantMessage } from '../../messages.js';
import type { ProviderEvent, StreamFn, StreamRequest } from '../../../providers/types.js';
import { EventQueue } from '../../../providers/event-queue.js';

export type StreamLayer = (next: StreamFn) => StreamFn;

/**
 * One event in, what to pass on out: the event itself (or one replacement), or a list (empty drops it, several
 * expand it). Returning a single event is the common case and allocates nothing.
 */
export type Mapped = ProviderEvent | readonly ProviderEvent[];
type EventMap = (event: ProviderEvent) => Mapped;
type MakeEventMap = (req: StreamRequest) => EventMap;

/** Marks a layer built by `eventLayer`, so `composeLayers` can run a row of them in one iterator. */
const EVENT_MAP = Symbol('eventLayer');
type TaggedLayer = StreamLayer & { [EVENT_MAP]?: MakeEventMap };

/**
 * Applies `layers` so that events flow provider → layers[0] → layers[1] → … → subscriber: the first layer sees
 * the provider's raw events, the last one hands them to the consumer. Consecutive event layers are fused into one
 * async iterator (each nested generator costs an await per event; with four layers that was most of the engine's
 * per-delta cost): every event goes through the maps in the same order as nested layers would apply them.
 */
export function composeLayers(base: StreamFn, layers: readonly StreamLayer[]): StreamFn {
  let fn = base;
  let row: MakeEventMap[] = [];
  const flush = () => {
    if (row.length > 0) fn = fusedEventLayers(row)(fn);
    row = [];
  };
  for (const layer of layers) {
    const make = (layer as TaggedLayer)[EVENT_MAP];
    if (make) row.push(make);
    else {
      flush();
      fn = layer(fn);
    }
  }
  flush();
  return fn;
}

/** A layer that rewrites events one at a time; `map` may drop (return []), replace or expand an event. */
export function eventLayer(make: MakeEventMap): StreamLayer {
  const layer: TaggedLayer = (next) => fusedEventLayers([make])(next);
  layer[EVENT_MAP] = make;
  return layer;
}

/** Maps one provider event to what the layers pass on, appended to `out` (state per model call). */
export type SyncMapper = (event: ProviderEvent, out: ProviderEvent[]) => void;

/**
 * A row made only of event layers as a synchronous mapper (undefined if a layer is not an event layer): the
 * consumer iterates the provider's stream itself and maps each event, with no async step of the layers' own.
 * Same events, in the same order, as iterating `composeLayers(base, layers)`.
 */
export function eventMapper(layers: readonly StreamLayer[]): ((req: StreamRequest) => SyncMapper) | undefined {
  const makes: MakeEventMap[] = [];
  for (const layer of layers) {
    const make = (layer as TaggedLayer)[EVENT_MAP];
    if (!make) return undefined;
    makes.push(make);
  }
  return (req) => {
    const maps = makes.map((make) => make(req));
    return (event, out) => applyMaps(maps, event, out);
  };
}

/** Runs `event` through `maps` in order, appending what comes out to `out`. */
export function applyMaps(maps: readonly EventMap[], event: ProviderEvent, out: ProviderEvent[], from = 0): void {
  let e: ProviderEvent = event;
  for (let m = from; m < maps.length; m++) {
    const mapped = maps[m]!(e);
    if (!Array.isArray(mapped)) {
      e = mapped as ProviderEvent;
      continue;
    }
    // Dropped or expanded: the rest of the row sees each resulting event in turn.
    for (const x of mapped as readonly ProviderEvent[]) applyMaps(maps, x, out, m + 1);
    return;
  }
  out.push(e);
}

/**
 * The fused row as a plain async iterator rather than an async generator: it runs once per streamed event, and a
 * generator costs an extra await and its own promises per event. Events that a map expanded wait in a queue.
 */
function fusedEventLayers(makes: readonly MakeEventMap[]): StreamLayer {
  return (next) => (req) => ({
    [Symbol.asyncIterator]: (): AsyncIterator<ProviderEvent> => {
      const maps = makes.map((make) => make(req));
      const source = next(req)[Symbol.asyncIterator]();
      const queue = new EventQueue<ProviderEvent>();
      const pull = (): Promise<IteratorResult<ProviderEvent>> =>
        source.next().then((r): IteratorResult<ProviderEvent> | Promise<IteratorResult<ProviderEvent>> => {
          if (r.done) return { done: true, value: undefined };
          applyMaps(maps, r.value, queue.items);
          return queue.pending ? queue.take() : pull();
        });
      return {
        next: () => (queue.pending ? Promise.resolve(queue.take()) : pull()),
        return: async (value?: unknown) => {
          queue.clear();
          await source.return?.(value);
          return { done: true, value: undefined };
        },
      };
    },
  });
}

/** The message with each content block mapped (block index preserved). */
export function mapBlocks(
  message: AssistantMessage,
  fn: (block: AssistantBlock, index: number) => AssistantBlock,
): AssistantMessage {
  return { ...message, content: message.content.map((b, i) => fn(b, i)) };
}
