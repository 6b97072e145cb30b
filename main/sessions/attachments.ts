/**
 * X3: the attachments store — every attached image or text file (and every image a tool returned) is kept once,
 * content-addressed, in the data folder: `<home>/attachments/<aa>/<sha256>`. Transcripts name the sha256 instead of
 * carrying the bytes, so a chat with a 1 MB screenshot does not grow by its base64 on every line that refers to it,
 * and the same picture attached twice is stored once. Downscaled copies for a provider's limits sit beside the
 * original (`<sha256>.<side>x<bytes>`), made once and reused.
 *
 * The folder is inside the data folder, which the agent's file tools and the exec sandbox never reach (X5, T2).
 * Writes are crash-safe: a temporary file, fsync, rename — a reader sees the whole file or none.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Attachment, FileData, ImageData } from '../engine/messages.js';
import { fitImage, imageSize, type FitLimits } from './image-fit.js';
import { humanBytes, imageMime, isText, textMime } from './media-type.js';

/** The largest image a person may attach (the original is kept; what is sent is downscaled). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** The largest text file a person may attach (what is sent is capped further, with a note). */
export const MAX_TEXT_BYTES = 2 * 1024 * 1024;

const SHA_RE = /^[0-9a-f]{64}$/;

export class AttachmentError extends Error {
  override name = 'AttachmentError';
}

export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export class AttachmentStore {
  constructor(readonly dir: string) {}

  path(sha256: string): string {
    if (!SHA_RE.test(sha256)) throw new AttachmentError(`Not an attachment id: ${JSON.stringify(sha256)}`);
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  /** Stores the bytes (once: an existing copy is kept) and returns their sha256. */
  async put(bytes: Uint8Array): Promise<string> {
    const sha = sha256Of(bytes);
    const file = this.path(sha);
    if (await exists(file)) return sha;
    await writeAtomic(file, bytes);
    return sha;
  }

  async has(sha256: string): Promise<boolean> {
    return exists(this.path(sha256));
  }

  async read(sha256: string): Promise<Buffer> {
    try {
      return await readFile(this.path(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AttachmentError(`The attachment ${sha256.slice(0, 12)}… is missing from the data folder.`);
      throw err;
    }
  }

  /**
   * The image as a provider may take it: the original when it fits `limits`, else a downscaled copy (made once and
   * kept beside the original).
   */
  async fitted(image: ImageData & { sha256: string }, limits: FitLimits): Promise<{ data: Buffer; mimeType: string }> {
    const variant = `${this.path(image.sha256)}.${limits.maxSide}x${limits.maxBytes}`;
    const cachedMime = await readFile(`${variant}.type`, 'utf8').catch(() => undefined);
    if (cachedMime) {
      const data = await readFile(variant).catch(() => undefined);
      if (data) return { data, mimeType: cachedMime };
    }
    const original = await this.read(image.sha256);
    const fit = await fitImage(original, image.mimeType, limits);
    if (!fit.changed) return { data: original, mimeType: image.mimeType };
    await writeAtomic(variant, fit.bytes);
    await writeAtomic(`${variant}.type`, Buffer.from(fit.mimeType));
    return { data: fit.bytes, mimeType: fit.mimeType };
  }

  /**
   * An upload (a file the person attached, a pasted image): its type from its bytes, stored, and the reference a
   * message carries. Refused with one clear line: an empty file, a type models are not given, a file too large.
   */
  async add(name: string, bytes: Uint8Array): Promise<Attachment> {
    const attachment = await classify(name, bytes);
    await this.put(bytes);
    return attachment;
  }

  /** The reference of an attachment already stored (its type and size read again from its bytes). */
  async describe(sha256: string, name: string): Promise<Attachment> {
    const attachment = await classify(name, await this.read(sha256));
    if (attachment.sha256 !== sha256) throw new AttachmentError(`The attachment ${sha256.slice(0, 12)}… is damaged in the data folder.`);
    return attachment;
  }
}

async function classify(name: string, bytes: Uint8Array): Promise<Attachment> {
  const shown = name.trim().split(/[\\/]/).pop()?.slice(0, 200) || 'attachment';
  if (bytes.length === 0) throw new AttachmentError(`${shown} is empty.`);
  const sha256 = sha256Of(bytes);
  const mime = imageMime(bytes.subarray(0, 16));
  if (mime) {
    if (bytes.length > MAX_IMAGE_BYTES) throw new AttachmentError(`${shown} is too large to attach (${humanBytes(bytes.length)}; images up to ${humanBytes(MAX_IMAGE_BYTES)}).`);
    const size = await imageSize(bytes).catch(() => {
      throw new AttachmentError(`${shown} looks like an image but cannot be read (damaged, or not really ${mime}).`);
    });
    const image: ImageData = { type: 'image', mimeType: mime, sha256, name: shown, bytes: bytes.length, width: size.width, height: size.height };
    return image;
  }
  if (!isText(bytes)) throw new AttachmentError(`${shown} is neither an image (PNG, JPEG, GIF, WebP) nor a text file; it cannot be attached.`);
  if (bytes.length > MAX_TEXT_BYTES) throw new AttachmentError(`${shown} is too large to attach (${humanBytes(bytes.length)}; text files up to ${humanBytes(MAX_TEXT_BYTES)}).`);
  const file: FileData = { type: 'file', name: shown, mimeType: textMime(shown), sha256, bytes: bytes.length };
  return file;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function writeAtomic(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${randomUUID()}.tmp`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * A message as the transcript keeps it: every image that still carries its bytes (a tool's result) is stored and
 * named by sha256 instead. Messages without inline images are returned as they are.
 */
export async function externalizeImages<M extends { role: string; images?: ImageData[]; attachments?: Attachment[] }>(message: M, store: AttachmentStore): Promise<M> {
  const swap = async (img: ImageData): Promise<ImageData> => {
    if (img.data === undefined) return img;
    const bytes = Buffer.from(img.data, 'base64');
    const sha256 = await store.put(bytes);
    const { data: _data, ...rest } = img;
    return { ...rest, sha256, bytes: img.bytes ?? bytes.length };
  };
  let out = message;
  if (message.images?.some((i) => i.data !== undefined)) out = { ...out, images: await Promise.all(message.images.map(swap)) };
  if (message.attachments?.some((a) => a.type === 'image' && a.data !== undefined)) {
    out = { ...out, attachments: await Promise.all(message.attachments.map((a) => (a.type === 'image' ? swap(a) : a))) };
  }
  return out;
}
