/** Test images made with sharp (real PNG/JPEG bytes of a chosen size). */
import sharp from 'sharp';

/** A PNG of random pixels: incompressible, so `width × height × 3` bytes is about its size. */
export async function noisePng(width: number, height: number, seed = 1): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 0xff;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** A small flat-colour image. */
export function flatImage(width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'gif' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } })[format]().toBuffer();
}

/** Pixel size of base64 image bytes. */
export async function sizeOfBase64(data: string): Promise<{ width: number; height: number; format: string }> {
  const meta = await sharp(Buffer.from(data, 'base64')).metadata();
  return { width: meta.width!, height: meta.height!, format: meta.format };
}
