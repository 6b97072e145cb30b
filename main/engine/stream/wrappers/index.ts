/**
 * The attempt's stream wrapper pipeline (E9). Events flow provider → text transforms → sanitise malformed tool
 * calls → promote a standalone text tool call → trim/normalise tool names → subscriber. The order is a contract
 * (stream-wrappers.test.ts shows what goes wrong in the other order):
 * - sanitise before promote: promotion needs the sanitiser's verdict on native calls;
 * - trim last: it only rewrites names that were already judged (the sanitiser and promotion both compare names
 *   trimmed and case-folded themselves, so its position among them changes nothing; last keeps that obvious).
 */
import { randomUUID } from 'node:crypto';
import type { StreamFn, StreamRequest } from '../../../providers/types.js';
import { composeLayers, eventMapper, type StreamLayer, type SyncMapper } from './layer.js';
import { promoteTextToolCallsLayer } from './promote-text-tool-calls.js';
import { sanitizeToolCallsLayer } from './sanitize-tool-calls.js';
import { stripControlChars, textTransformsLayer } from './text-transforms.js';
import { trimToolNamesLayer } from './trim-tool-names.js';

export interface WrapOptions {
  /** Names of the tools offered to the model. */
  allowed: readonly string[];
  /** Id for a call the provider sent without one or that was promoted from text (injectable for tests). */
  newId?: () => string;
}

export const defaultToolCallId = (): string => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

export function defaultLayers(opts: WrapOptions): StreamLayer[] {
  const newId = opts.newId ?? defaultToolCallId;
  return [
    textTransformsLayer([stripControlChars]),
    sanitizeToolCallsLayer({ allowed: opts.allowed, newId }),
    promoteTextToolCallsLayer({ allowed: opts.allowed, newId }),
    trimToolNamesLayer({ allowed: opts.allowed }),
  ];
}

/**
 * The default layers as one synchronous mapper, made per model call, that the attempt applies to each event of the
 * provider's own stream (one async step per streamed event less than composing StreamFns).
 */
export function streamMapper(opts: WrapOptions): (req: StreamRequest) => SyncMapper {
  const make = eventMapper(defaultLayers(opts));
  if (!make) throw new Error('the default stream layers are event layers');
  return make;
}

export { composeLayers, type StreamLayer, type SyncMapper } from './layer.js';
