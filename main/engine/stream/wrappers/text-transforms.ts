/**
 * Text transforms layer: per-character rewrites of assistant text, applied identically to every streamed delta and
 * to the terminal message's text blocks (a transform must not depend on neighbouring characters, or a chunk border
 * would change its result).
 */
import type { TextTransform } from './types.js';
import { eventLayer, mapBlocks, type StreamLayer } from './layer.js';

/** C0 control characters other than tab, newline and carriage return (some local models emit NULs and ESCs). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

export const stripControlChars: TextTransform = (text) => (hasControlChar(text) ? text.replace(CONTROL, '') : text);

/** Same test as CONTROL, as a loop: runs on every streamed delta, and almost never finds one. */
function hasControlChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) return true;
  }
  return false;
}

export function textTransformsLayer(transforms: readonly TextTransform[]): StreamLayer {
  const apply = (text: string): string => {
    let t = text;
    for (const fn of transforms) t = fn(t);
    return t;
  };
  return eventLayer(() => (event) => {
    if (event.type === 'text_delta') {
      const delta = apply(event.delta);
      if (delta === event.delta) return event;
      return delta === '' ? [] : { ...event, delta };
    }
    if (event.type === 'done' || event.type === 'error') {
      const message = mapBlocks(event.message, (b) => (b.type === 'text' ? { ...b, text: apply(b.text) } : b));
      return { ...event, message };
    }
    return event;
  });
}
