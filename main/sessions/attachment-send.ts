/**
 * X3: what a request carries of the attachments. The transcript names attachments by sha256; just before a model call
 * (a StreamFn wrapper, so tool-loop calls, compaction summaries and retries all pass through it) each one is put
 * back: a text file as quoted text with its name (capped, with a note when cut), an image as its bytes made to fit
 * the provider's limits (image-fit.ts). A model that takes no images (its entry's `input` lacks "image") is given a
 * one-line note instead of each image — from the person's earlier messages or from a tool result — so a chat that
 * switched models stays sendable.
 */
import type { Attachment, FileData, ImageData, Message, ToolResultMessage, UserMessage } from '../engine/messages.js';
import { emptyUsage } from '../engine/messages.js';
import type { ModelDef, StreamFn } from '../providers/types.js';
import { preflight } from '../providers/preflight.js';
import { takesImages } from '../providers/types.js';
import type { AttachmentStore } from './attachments.js';
import { IMAGE_LIMITS } from './image-fit.js';
import { humanBytes } from './media-type.js';

/** Characters of one attached text file a request carries (the rest is cut with a note). */
export const TEXT_SEND_CAP_CHARS = 50_000;

/** The note a text-only model gets in place of an image. */
export const imageNote = (img: ImageData, model: ModelDef): string =>
  `[image${img.name ? ` ${img.name}` : ''} (${img.mimeType}${img.bytes ? `, ${humanBytes(img.bytes)}` : ''}${img.width && img.height ? `, ${img.width}×${img.height}` : ''}) not shown: ${model.provider}/${model.id} does not take images]`;

/** A text file as the model reads it: its name, then the text fenced in a tag (cut at `cap` characters, with a note). */
export function quoteFile(file: Pick<FileData, 'name' | 'mimeType' | 'mention'>, text: string, cap = TEXT_SEND_CAP_CHARS): string {
  const cut = text.length > cap;
  const body = cut ? `${text.slice(0, cap)}\n[… cut: the file has ${text.length} characters, the first ${cap} are shown]` : text;
  const tag = file.mention === 'folder' ? 'folder_listing' : 'attached_file';
  return `<${tag} name=${JSON.stringify(file.name)} type=${JSON.stringify(file.mimeType)}>\n${body}\n</${tag}>`;
}

/** Small cache of what was sent lately (base64 by sha256 and limits; text by sha256): a tool loop resends the same. */
class SendCache {
  #map = new Map<string, string>();
  #size = 0;
  constructor(private readonly maxChars = 96 * 1024 * 1024) {}
  get(key: string): string | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, value: string): void {
    if (value.length > this.maxChars) return;
    this.#map.set(key, value);
    this.#size += value.length;
    for (const [k, v] of this.#map) {
      if (this.#size <= this.maxChars) break;
      this.#map.delete(k);
      this.#size -= v.length;
    }
  }
}

export class AttachmentResolver {
  readonly #cache = new SendCache();
  constructor(private readonly store: AttachmentStore) {}

  /** The messages as `model` is sent them (pure apart from reading the store; the input is not changed). */
  async forModel(messages: readonly Message[], model: ModelDef): Promise<Message[]> {
    if (!messages.some(hasMedia)) return [...messages];
    const vision = takesImages(model);
    const out: Message[] = [];
    for (const m of messages) {
      if (m.role === 'user' && m.attachments?.length) out.push(await this.#user(m, model, vision));
      else if (m.role === 'toolResult' && m.images?.length) out.push(await this.#toolResult(m, model, vision));
      else out.push(m);
    }
    return out;
  }

  async #user(m: UserMessage, model: ModelDef, vision: boolean): Promise<UserMessage> {
    const quoted: string[] = [];
    const notes: string[] = [];
    const images: Attachment[] = [];
    for (const a of m.attachments ?? []) {
      if (a.type === 'file') quoted.push(quoteFile(a, await this.#text(a)));
      else if (vision) images.push(await this.#image(a, model));
      else notes.push(imageNote(a, model));
    }
    const content = [...quoted, m.content, ...notes].filter((s) => s.trim() !== '').join('\n\n');
    const { attachments: _omit, ...rest } = m;
    return { ...rest, content, ...(images.length ? { attachments: images } : {}) };
  }

  async #toolResult(m: ToolResultMessage, model: ModelDef, vision: boolean): Promise<ToolResultMessage> {
    const { images: list = [], ...rest } = m;
    if (!vision) return { ...rest, content: [m.content, ...list.map((img) => imageNote(img, model))].filter(Boolean).join('\n') };
    const images: ImageData[] = [];
    for (const img of list) images.push(await this.#image(img, model));
    return { ...rest, images };
  }

  async #text(file: FileData): Promise<string> {
    if (file.text !== undefined) return file.text;
    const key = `t:${file.sha256}`;
    let text = this.#cache.get(key);
    if (text === undefined) {
      text = (await this.store.read(file.sha256)).toString('utf8').replace(/^\uFEFF/, '');
      this.#cache.set(key, text);
    }
    return text;
  }

  /** The image's bytes as the provider may take them (from the store, or inline bytes made to fit). */
  async #image(img: ImageData, model: ModelDef): Promise<ImageData> {
    const limits = IMAGE_LIMITS[model.api];
    let sha = img.sha256;
    if (!sha) {
      if (img.data === undefined) throw new Error('An image without data or an attachment id cannot be sent.');
      sha = await this.store.put(Buffer.from(img.data, 'base64'));
    }
    const key = `i:${sha}:${limits.maxSide}x${limits.maxBytes}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      const sep = hit.indexOf(';');
      return { ...img, mimeType: hit.slice(0, sep), data: hit.slice(sep + 1) };
    }
    const fitted = await this.store.fitted({ ...img, sha256: sha }, limits);
    const data = fitted.data.toString('base64');
    this.#cache.set(key, `${fitted.mimeType};${data}`);
    return { ...img, mimeType: fitted.mimeType, data };
  }
}

const hasMedia = (m: Message): boolean => (m.role === 'user' && !!m.attachments?.length) || (m.role === 'toolResult' && !!m.images?.length);

/**
 * The StreamFn wrapper: every request's attachments resolved for its model before the provider sees it. A missing or
 * unreadable attachment ends the call with an error event (a StreamFn never throws).
 */
export function withAttachments(inner: StreamFn, resolver: AttachmentResolver): StreamFn {
  return preflight(inner, async (req) => {
    try {
      return { ...req, messages: await resolver.forModel(req.messages, req.model) };
    } catch (err) {
      const error = new Error(`Could not attach a file to the request: ${(err as Error).message}`);
      return {
        type: 'error',
        error,
        message: { role: 'assistant', content: [], provider: req.model.provider, model: req.model.id, api: req.model.api, usage: emptyUsage(), stopReason: 'error', errorMessage: error.message, timestamp: Date.now() },
      };
    }
  });
}
