/** `write {path, content}`: creates or replaces a file atomically (temp file + rename), making parent folders. */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseArgs } from './args.js';
import { displayPath, errCode, resolveInWorkspace } from './paths.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

const Args = z.strictObject({
  path: z.string({ error: '`path` must be a string' }),
  content: z.string({ error: '`content` must be a string' }),
});

export function createWriteTool(): Tool {
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
    execute: (args, ctx) => runWrite(args, ctx),
  };
}

async function runWrite(rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const args = parseArgs('write', Args, rawArgs);
  const target = await resolveInWorkspace(ctx.workspace, args.path, { allowMissing: true });
  const shown = displayPath(ctx.workspace, target);
  if (target === ctx.workspace) throw new ToolError('write: the workspace folder itself cannot be written as a file');

  const existing = await stat(target).catch((err: unknown) => {
    if (errCode(err) === 'ENOENT') return null;
    throw err;
  });
  if (existing?.isDirectory()) throw new ToolError(`write: "${shown}" is a directory`);
  if (existing && !existing.isFile()) throw new ToolError(`write: "${shown}" is not a regular file`);
  ctx.signal.throwIfAborted();

  // `target` is a real path whose existing part was checked, so the folders created here stay inside.
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const bytes = Buffer.byteLength(args.content, 'utf8');
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(tmp, args.content, { encoding: 'utf8', flag: 'wx' });
    if (existing) await chmod(tmp, existing.mode & 0o7777);
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new ToolError(`write: could not write "${shown}": ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    content: `Wrote ${bytes} bytes to ${shown}`,
    details: { path: shown, bytes, created: existing === null },
  };
}
