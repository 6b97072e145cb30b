/**
 * X3 gateway methods: `attachments.add` (a pasted, dropped or picked file → the attachments store), `attachments.get`
 * (its bytes, to show it), `attachments.mention` (an `@`-mentioned workspace path: a file's content, a folder's
 * listing, read through the confined file layer like the agent's own tools), `workspace.complete` (paths for the
 * composer's `@`, .gitignore-aware), and the check `agent` runs on a message's attachments.
 */
import path from 'node:path';
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { AttachmentDto, Methods, PathCompletion } from '../../../preload/contract.js';
import type { Attachment } from '../../engine/messages.js';
import type { ModelDef } from '../../providers/types.js';
import { takesImages } from '../../providers/types.js';
import { AttachmentError, MAX_IMAGE_BYTES, type AttachmentStore } from '../../sessions/attachments.js';
import { openForRead } from '../../tools/fs/confined.js';
import { listTree } from '../../tools/fs/tree.js';
import { createListTool } from '../../tools/list.js';
import { validatedMethods } from '../params.js';
import { GatewayError } from '../types.js';
import { rankCompletions } from './path-rank.js';

/** base64 of the largest image (20 MB), with room. */
const MAX_BASE64 = Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 16;
/** Workspace entries kept for completion (a huge tree is cut; the rest still works by typing more). */
const MAX_INDEXED = 50_000;
/** How long one crawl of the workspace serves completions. */
const INDEX_TTL_MS = 10_000;

const sha = lazy(() => z.string().regex(/^[0-9a-f]{64}$/, 'not an attachment id'));

export const attachmentSchemas = lazy(() => ({
  'attachments.add': z.object({ name: z.string().max(1000), data: z.string().max(MAX_BASE64) }).strict(),
  'attachments.get': z.object({ id: sha }).strict(),
  'attachments.mention': z.object({ path: z.string().min(1).max(4096) }).strict(),
  'workspace.complete': z.object({ query: z.string().max(1000), limit: z.number().int().min(1).max(100).optional() }).strict(),
}));

export const toAttachmentDto = (a: Attachment): AttachmentDto => ({
  id: a.sha256 ?? '',
  type: a.type,
  name: a.name ?? (a.type === 'image' ? 'image' : 'file'),
  mimeType: a.mimeType,
  bytes: a.bytes ?? 0,
  ...(a.type === 'image' && a.width ? { width: a.width, height: a.height } : {}),
  ...(a.type === 'file' && a.mention ? { mention: a.mention } : {}),
});

const refuse = (err: unknown): never => {
  if (err instanceof AttachmentError || (err as Error)?.name === 'ToolError') throw new GatewayError('bad_request', (err as Error).message);
  throw err;
};

export interface AttachmentMethodsContext {
  store: AttachmentStore;
  workspace: () => string;
  now: () => number;
}

export function createAttachmentMethods(ctx: AttachmentMethodsContext) {
  let index: { root: string; at: number; paths: Promise<string[]> } | undefined;
  const workspacePaths = (): Promise<string[]> => {
    const root = ctx.workspace();
    if (!index || index.root !== root || ctx.now() - index.at > INDEX_TTL_MS) {
      const paths = listTree({ ws: root, baseRel: '.', pattern: '**', includeDirs: true }).then((all) => all.slice(0, MAX_INDEXED));
      index = { root, at: ctx.now(), paths };
      paths.catch(() => (index = undefined));
    }
    return index.paths;
  };

  type Results = { [M in keyof typeof attachmentSchemas]: Methods[M][1] };
  const methods = validatedMethods<typeof attachmentSchemas, Results>(attachmentSchemas, {
    'attachments.add': async (p) => toAttachmentDto(await ctx.store.add(p.name, Buffer.from(p.data, 'base64')).catch(refuse)),
    'attachments.get': async (p) => {
      const bytes = await ctx.store.read(p.id).catch(refuse);
      const a = await ctx.store.describe(p.id, 'attachment').catch(refuse);
      return { mimeType: a.mimeType, data: bytes.toString('base64') };
    },
    'attachments.mention': async (p) => {
      const ws = ctx.workspace();
      const file = await openForRead(ws, p.path).catch(refuse);
      let rel: string;
      let bytes: Buffer;
      let folder = false;
      try {
        rel = file.rel;
        folder = file.stat.isDirectory();
        if (!folder && !file.stat.isFile()) throw new GatewayError('bad_request', `@${rel} is not a regular file or folder.`);
        if (!folder && file.stat.size > MAX_IMAGE_BYTES) throw new GatewayError('bad_request', `@${rel} is too large to attach.`);
        bytes = folder ? Buffer.alloc(0) : await file.handle.readFile();
      } finally {
        await file.handle.close();
      }
      if (folder) {
        const listing = await createListTool().execute({ path: rel }, { workspace: ws, signal: AbortSignal.timeout(10_000) }).catch(refuse);
        const name = rel === '.' ? './' : `${rel}/`;
        const a = await ctx.store.add(name, Buffer.from(listing.content || '[empty folder]')).catch(refuse);
        return { ...toAttachmentDto(a), name, mention: 'folder' as const };
      }
      const a = await ctx.store.add(rel, bytes).catch(refuse);
      return { ...toAttachmentDto(a), name: rel, ...(a.type === 'file' ? { mention: 'file' as const } : {}) };
    },
    'workspace.complete': async (p): Promise<PathCompletion[]> => {
      const paths = await workspacePaths().catch(() => [] as string[]);
      return rankCompletions(paths, p.query, p.limit ?? 20);
    },
  });

  /** The attachments a message names, each read back from the store; an image to a text-only model is refused. */
  async function attachmentsFor(refs: { id: string; name?: string; mention?: 'file' | 'folder' }[], model: ModelDef): Promise<Attachment[]> {
    const out: Attachment[] = [];
    for (const ref of refs) {
      const a = await ctx.store.describe(ref.id, path.basename(ref.name ?? '') ? (ref.name ?? 'attachment') : 'attachment').catch(refuse);
      if (a.type === 'image' && !takesImages(model)) {
        throw new GatewayError(
          'bad_request',
          `${model.provider}/${model.id} does not take images, so ${a.name ?? 'the image'} was not sent (a model entry takes them with "input": ["text", "image"]).`,
        );
      }
      out.push(a.type === 'file' && ref.mention ? { ...a, name: ref.name ?? a.name, mention: ref.mention } : a);
    }
    return out;
  }

  return { methods, attachmentsFor };
}
