/**
 * X3: images made to fit a provider's limits — the longest side and the bytes of one image — before they are sent;
 * the original stays in the attachments store. Decoding and resizing use sharp (libvips; its prebuilt binaries come
 * from the npm registry as @img/* packages, no download at install), loaded only when an image is handled.
 *
 * Limits (per image): Anthropic resizes anything past 1568 px on the long side itself (slower, same tokens) and
 * rejects more than 5 MB of base64; OpenAI scales to fit 2048 px and takes up to 20 MB. A too-large picture is
 * scaled down in its own format (an animated GIF keeps its frames); when that is still too many bytes it becomes a
 * JPEG of falling quality, then smaller again.
 */
import type { ApiKind } from '../providers/types.js';

export interface FitLimits {
  /** Longest side in pixels. */
  maxSide: number;
  /** Bytes of the encoded image (not of its base64). */
  maxBytes: number;
}

/** 5 MB of base64 is 3.75 MB of bytes. */
const ANTHROPIC: FitLimits = { maxSide: 1568, maxBytes: Math.floor((5 * 1024 * 1024 * 3) / 4) };
const OPENAI: FitLimits = { maxSide: 2048, maxBytes: 15 * 1024 * 1024 };

export const IMAGE_LIMITS: Readonly<Record<ApiKind, FitLimits>> = {
  anthropic: ANTHROPIC,
  'openai-chat': OPENAI,
  'openai-responses': OPENAI,
  demo: ANTHROPIC,
};

type Sharp = typeof import('sharp').default;
let loaded: Promise<Sharp> | undefined;
const sharpLib = (): Promise<Sharp> => (loaded ??= import('sharp').then((m) => m.default));

/** Pixel size (the first frame's, for an animated image). Throws when the bytes do not decode as an image. */
export async function imageSize(bytes: Uint8Array): Promise<{ width: number; height: number }> {
  const sharp = await sharpLib();
  const meta = await sharp(bytes).metadata();
  if (!meta.width || !meta.height) throw new Error('no image size');
  return { width: meta.width, height: meta.pageHeight ?? meta.height };
}

export interface Fitted {
  bytes: Buffer;
  mimeType: string;
  width: number;
  height: number;
  /** False when the original already fits (then `bytes` is the original). */
  changed: boolean;
}

/** Most rounds of "smaller again" before giving up (each takes the side to 3/4). */
const MAX_ROUNDS = 8;

export async function fitImage(original: Uint8Array, mimeType: string, limits: FitLimits): Promise<Fitted> {
  const sharp = await sharpLib();
  const animated = mimeType === 'image/gif';
  const meta = await sharp(original, { animated }).metadata();
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (Math.max(width, height) <= limits.maxSide && original.length <= limits.maxBytes) {
    return { bytes: Buffer.from(original), mimeType, width, height, changed: false };
  }
  let side = Math.min(limits.maxSide, Math.max(width, height));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const resized = (frames = animated) => sharp(original, { animated: frames }).rotate().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
    const tries: Array<() => Promise<{ data: Buffer; info: { width: number; height: number } }>> = [];
    if (mimeType === 'image/png') tries.push(() => resized().png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true }));
    else if (mimeType === 'image/webp') tries.push(() => resized().webp({ quality: 85 }).toBuffer({ resolveWithObject: true }));
    else if (mimeType === 'image/gif') tries.push(() => resized().gif().toBuffer({ resolveWithObject: true }));
    for (const quality of [85, 70, 50]) {
      // A JPEG has one frame: an animated GIF gives its first.
      tries.push(() => resized(false).flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer({ resolveWithObject: true }));
    }
    for (const [i, attempt] of tries.entries()) {
      const { data, info } = await attempt();
      if (data.length <= limits.maxBytes) {
        const jpeg = i >= tries.length - 3;
        return { bytes: data, mimeType: jpeg ? 'image/jpeg' : mimeType, width: info.width, height: (info as { pageHeight?: number }).pageHeight ?? info.height, changed: true };
      }
    }
    side = Math.max(16, Math.floor(side * 0.75));
  }
  throw new Error(`The image cannot be made smaller than ${limits.maxBytes} bytes.`);
}
