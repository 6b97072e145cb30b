/**
 * X3: what kind of file a person attached, from its bytes (never from its name): the four image types models take,
 * or text (UTF-8 without NUL bytes). Pure.
 */

export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMime = (typeof IMAGE_MIME_TYPES)[number];

const MAGIC: Array<[ImageMime, number[]]> = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
];

/** The image type the bytes start like (PNG, JPEG, GIF, WebP), else null. */
export function imageMime(head: Uint8Array): ImageMime | null {
  for (const [mime, magic] of MAGIC) {
    if (head.length >= magic.length && magic.every((b, i) => head[i] === b)) return mime;
  }
  const latin = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head.length >= 12 && latin(0, 4) === 'RIFF' && latin(8, 12) === 'WEBP') return 'image/webp';
  return null;
}

/** 'PNG' | 'JPEG' | 'GIF' | 'WebP' (what the read tool names). */
export const imageLabel = (mime: ImageMime): string => ({ 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' })[mime];

/** Text a model can be given: valid UTF-8 (a BOM is fine) with no NUL byte. */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The MIME type of a text file, by its extension (only for display; the bytes decided it is text). */
export function textMime(name: string): string {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  const known: Record<string, string> = {
    md: 'text/markdown',
    json: 'application/json',
    csv: 'text/csv',
    html: 'text/html',
    xml: 'application/xml',
    yaml: 'application/yaml',
    yml: 'application/yaml',
    js: 'text/javascript',
    ts: 'text/x-typescript',
    py: 'text/x-python',
  };
  return known[ext] ?? 'text/plain';
}

export const humanBytes = (n: number): string =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} bytes`;
