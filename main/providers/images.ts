/** X3: the images of a message that a request can carry — those whose bytes were put back (sessions/attachment-send.ts). */
import type { Attachment, ImageData } from '../engine/messages.js';

export type SendableImage = ImageData & { data: string };

export const sendableImages = (list: readonly Attachment[] | undefined): SendableImage[] =>
  (list ?? []).filter((a): a is SendableImage => a.type === 'image' && typeof a.data === 'string' && a.data !== '');

export const dataUrl = (img: SendableImage): string => `data:${img.mimeType};base64,${img.data}`;
