/**
 * Trim/normalise tool names (E9, inventory §21 item 8: `" read "` → `"read"`): a name that matches an offered
 * tool after trimming, exactly or ignoring case, becomes that tool's own spelling — in the events and in the
 * terminal message, so the transcript records the name that ran. Runs last, so promoted calls are normalised too.
 */
import { eventLayer, mapBlocks, type StreamLayer } from './layer.js';
import { allowedName, type ToolNameOptions } from './types.js';

export function normaliseToolName(allowed: readonly string[], name: string): string {
  return allowedName(allowed, name) ?? name;
}

export function trimToolNamesLayer(opts: ToolNameOptions): StreamLayer {
  const norm = (name: string) => normaliseToolName(opts.allowed, name);
  return eventLayer(() => (event) => {
    switch (event.type) {
      case 'toolcall_start':
      case 'toolcall_end':
        return { ...event, name: norm(event.name) };
      case 'done':
      case 'error':
        return { ...event, message: mapBlocks(event.message, (b) => (b.type === 'toolCall' ? { ...b, name: norm(b.name) } : b)) };
      default:
        return event;
    }
  });
}
