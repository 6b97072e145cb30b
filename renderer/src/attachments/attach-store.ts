/**
 * X3 in the window: the attachments of the message being written (pasted, dropped, picked with Attach, or `@`-
 * mentioned), stored through `attachments.add` / `attachments.mention` as soon as they arrive (the gateway checks
 * type and size and answers with one line when it refuses), previews of stored images (`attachments.get`), and `@`
 * path completions (`workspace.complete`).
 */
import { create } from 'zustand';
import type { AgentDeskApi, AttachmentDto, AttachmentRef, PathCompletion } from '../../../preload/contract.js';

interface AttachState {
  /** What the draft carries, in order. */
  items: AttachmentDto[];
  /** Files on their way to the gateway. */
  uploading: number;
  error?: string;
}

export const useAttach = create<AttachState>(() => ({ items: [], uploading: 0 }));

let api: AgentDeskApi | undefined;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function connectAttachments(a: AgentDeskApi): void {
  api = a;
}

function base64Of(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const push = (dto: AttachmentDto) =>
  useAttach.setState((s) => (s.items.some((i) => i.id === dto.id && i.name === dto.name) ? s : { items: [...s.items, dto] }));

/** Files from a paste, a drop or the Attach button. A pasted screenshot has no useful name: it gets one. */
export async function addFiles(files: readonly File[]): Promise<void> {
  if (!api || files.length === 0) return;
  useAttach.setState((s) => ({ uploading: s.uploading + files.length, error: undefined }));
  for (const file of files) {
    try {
      const name = file.name && file.name !== 'image.png' ? file.name : `pasted-${new Date().toISOString().slice(11, 19).replace(/:/g, '')}.${file.type.split('/')[1] ?? 'png'}`;
      push(await api.request('attachments.add', { name, data: base64Of(await file.arrayBuffer()) }));
    } catch (err) {
      useAttach.setState({ error: message(err) });
    } finally {
      useAttach.setState((s) => ({ uploading: s.uploading - 1 }));
    }
  }
}

/** An `@`-mentioned workspace path: a file's text (or image), a folder's listing. */
export async function addMention(path: string): Promise<void> {
  if (!api) return;
  try {
    push(await api.request('attachments.mention', { path: path.replace(/\/$/, '') || '.' }));
  } catch (err) {
    useAttach.setState({ error: message(err) });
  }
}

export const removeAttachment = (index: number): void => useAttach.setState((s) => ({ items: s.items.filter((_, i) => i !== index), error: undefined }));

/** Takes the draft's attachments (for sending) and empties the tray. */
export function takeAttachments(): AttachmentDto[] {
  const { items } = useAttach.getState();
  useAttach.setState({ items: [], error: undefined });
  return items;
}

export const restoreAttachments = (items: AttachmentDto[]): void => useAttach.setState({ items });

export const refsOf = (items: readonly AttachmentDto[]): AttachmentRef[] =>
  items.map((a) => ({ id: a.id, name: a.name, ...(a.mention ? { mention: a.mention } : {}) }));

const previews = new Map<string, Promise<string | undefined>>();

/** A data: URL of a stored image (fetched once per id). */
export function previewUrl(id: string): Promise<string | undefined> {
  let p = previews.get(id);
  if (!p) {
    p = api
      ? api.request('attachments.get', { id }).then(
          (r) => `data:${r.mimeType};base64,${r.data}`,
          () => undefined,
        )
      : Promise.resolve(undefined);
    previews.set(id, p);
  }
  return p;
}

export async function completePaths(query: string): Promise<PathCompletion[]> {
  if (!api) return [];
  return api.request('workspace.complete', { query, limit: 12 }).catch(() => []);
}

/** The `@word` being typed right before the caret, or undefined. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return undefined;
  return { start: before.length - m[2]!.length - 1, query: m[2]! };
}
