/**
 * `write {path, content}`: creates or replaces a file atomically (temp file + rename), making parent folders,
 * through the confined layer (no symlink or swapped folder can redirect it outside the workspace).
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { writeAtomic } from './fs/confined.js';
import type { Tool, ToolContext, ToolOutput } from './types.js';
import type { ProtectedGrants } from './protected/grants.js';
import { protectedGuard } from './protected/guard.js';

const Args = lazy(() => z.strictObject({
  path: z.string({ error: '`path` must be a string' }),
  content: z.string({ error: '`content` must be a string' }),
}));

export function createWriteTool(opts: { grants?: ProtectedGrants } = {}): Tool {
  return {
    name: 'write',
    description:
      'Create or overwrite a file in the workspace with the given content. Parent folders are created as needed.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace (or absolute inside it).' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runWrite(args, ctx, opts.grants),
    changesOnly: (args) => args.path,
  };
}

async function runWrite(rawArgs: unknown, ctx: ToolContext, grants: ProtectedGrants | undefined): Promise<ToolOutput> {
  const args = parseArgs('write', Args, rawArgs);
  ctx.signal.throwIfAborted();
  const r = await writeAtomic(ctx.workspace, args.path, args.content, 'write', { guard: protectedGuard(ctx.workspace, 'write', grants) });
  return {
    content: `Wrote ${r.bytes} bytes to ${r.rel}`,
    details: { path: r.rel, bytes: r.bytes, created: r.created },
  };
}
