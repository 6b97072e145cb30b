/**
 * Stream wrapper layers (E9): middleware between a provider's StreamFn and the subscriber. A layer takes the next
 * StreamFn and returns a StreamFn with the same contract (never throws, exactly one terminal event). Each layer
 * that changes content changes BOTH the streamed events and the terminal message, so what was shown and what is
 * persisted stay the same text.
 */
import type { AssistantBlock, AssistantMessage } from '../../messages.js';
import type { ProviderEvent, StreamFn, StreamRequest } from '../../../providers/types.js';

export type StreamLayer = (next: StreamFn) => StreamFn;

type EventMap = (event: ProviderEvent) => ProviderEvent[];
type MakeEventMap = (req: StreamRequest) => EventMap;

/** Marks a layer built by `eventLayer`, so `composeLayers` can run a row of them in one generator. */
const EVENT_MAP = Symbol('eventLayer');
type TaggedLayer = StreamLayer & { [EVENT_MAP]?: MakeEventMap };

/**
 * Applies `layers` so that events flow provider → layers[0] → layers[1] → … → subscriber: the first layer sees
 * the provider's raw events, the last one hands them to the consumer. Consecutive event layers are fused into one
 * async generator (each nested generator costs an await per event; with four layers that was most of the engine's
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

/** A layer that rewrites events one at a time; `map` may drop (return []) or expand an event. */
export function eventLayer(make: MakeEventMap): StreamLayer {
  const layer: TaggedLayer = (next) => fusedEventLayers([make])(next);
  layer[EVENT_MAP] = make;
  return layer;
}

function fusedEventLayers(makes: readonly MakeEventMap[]): StreamLayer {
  return (next) =>
    async function* (req) {
      const maps = makes.map((make) => make(req));
      for await (const event of next(req)) {
        let batch: ProviderEvent[] = [event];
        for (const map of maps) {
          if (batch.length === 1) batch = map(batch[0]!);
          else {
            const out: ProviderEvent[] = [];
            for (const e of batch) for (const mapped of map(e)) out.push(mapped);
            batch = out;
          }
        }
        for (const e of batch) yield e;
      }
    };
}

/** The message with each content block mapped (block index preserved). */
export function mapBlocks(
  message: AssistantMessage,
  fn: (block: AssistantBlock, index: number) => AssistantBlock,
): AssistantMessage {
  return { ...message, content: message.content.map((b, i) => fn(b, i)) };
}
