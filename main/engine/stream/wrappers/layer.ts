/**
 * Stream wrapper layers (E9): middleware between a provider's StreamFn and the subscriber. A layer takes the next
 * StreamFn and returns a StreamFn with the same contract (never throws, exactly one terminal event). Each layer
 * that changes content changes BOTH the streamed events and the terminal message, so what was shown and what is
 * persisted stay the same text.
 */
import type { AssistantBlock, AssistantMessage } from '../../messages.js';
import type { ProviderEvent, StreamFn, StreamRequest } from '../../../providers/types.js';

export type StreamLayer = (next: StreamFn) => StreamFn;

/**
 * Applies `layers` so that events flow provider → layers[0] → layers[1] → … → subscriber: the first layer sees
 * the provider's raw events, the last one hands them to the consumer.
 */
export function composeLayers(base: StreamFn, layers: readonly StreamLayer[]): StreamFn {
  return layers.reduce<StreamFn>((fn, layer) => layer(fn), base);
}

/** A layer that rewrites events one at a time; `map` may drop (return []) or expand an event. */
export function eventLayer(make: (req: StreamRequest) => (event: ProviderEvent) => ProviderEvent[]): StreamLayer {
  return (next) =>
    async function* (req) {
      const map = make(req);
      for await (const event of next(req)) yield* map(event);
    };
}

/** The message with each content block mapped (block index preserved). */
export function mapBlocks(
  message: AssistantMessage,
  fn: (block: AssistantBlock, index: number) => AssistantBlock,
): AssistantMessage {
  return { ...message, content: message.content.map((b, i) => fn(b, i)) };
}
