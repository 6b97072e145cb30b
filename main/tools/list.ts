/**
 * `list {path?}`: the entries of one directory, sorted by name. Folders end in '/', files show their size,
 * symlinks show where they point (never followed outside: `name -> (outside workspace)`). Nothing is hidden.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseArgs } from './args.js';
import { displayPath, isInside, resolveInWorkspace } from './paths.js';
import { humanSize } from './text.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const MAX_LIST_ENTRIES = 500;

const Args = z.strictObject({
  path: z.string({ error: '`path` must be a string' }).nullish(),
});

export interface ListToolOptions {
  maxEntries?: number;
}

export function createListTool(opts: ListToolOptions = {}): Tool {
  const maxEntries = opts.maxEntries ?? MAX_LIST_ENTRIES;
  return {
    name: 'list',
    description:
      "List the entries of one directory in the workspace (default: the workspace root). Folders end in '/', " +
      'files show their size.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: "Directory, relative to the workspace. Default '.'." },
      },
      required: [],
      additionalProperties: false,
    },
    execute: (args, ctx) => runList(args, ctx, maxEntries),
  };
}

async function runList(rawArgs: unknown, ctx: ToolContext, maxEntries: number): Promise<ToolOutput> {
  const args = parseArgs('list', Args, rawArgs);
  const dir = await resolveInWorkspace(ctx.workspace, args.path ?? '.');
  const shown = displayPath(ctx.workspace, dir);
  const info = await stat(dir);
  if (!info.isDirectory()) throw new ToolError(`list: "${shown}" is a file, not a directory; use read to see it`);

  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const visible = entries.slice(0, maxEntries);
  const lines: string[] = [];
  for (const entry of visible) {
    ctx.signal.throwIfAborted();
    lines.push(await describe(ctx.workspace, dir, entry));
  }
  if (entries.length > visible.length) {
    lines.push(`[… ${entries.length - visible.length} more entries not shown (${entries.length} total)]`);
  }
  const content = lines.length === 0 ? '[empty directory]' : lines.join('\n');
  return { content, details: { path: shown, total: entries.length, shown: visible.length } };
}

async function describe(workspace: string, dir: string, entry: Dirent): Promise<string> {
  const full = path.join(dir, entry.name);
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isFile()) {
    const size = await stat(full).then((s) => humanSize(s.size), () => '?');
    return `${entry.name}  (${size})`;
  }
  if (entry.isSymbolicLink()) {
    const target = await realpath(full).catch(() => null);
    if (target === null) return `${entry.name} -> (broken link)`;
    if (!isInside(workspace, target)) return `${entry.name} -> (outside workspace)`;
    const targetInfo = await stat(target).catch(() => null);
    const rel = displayPath(workspace, target);
    if (targetInfo?.isDirectory()) return `${entry.name}/ -> ${rel}/`;
    return targetInfo?.isFile() ? `${entry.name} -> ${rel}  (${humanSize(targetInfo.size)})` : `${entry.name} -> ${rel}`;
  }
  return `${entry.name}  (${kindOf(entry)})`;
}

function kindOf(entry: Dirent): string {
  if (entry.isFIFO()) return 'fifo';
  if (entry.isSocket()) return 'socket';
  if (entry.isCharacterDevice()) return 'character device';
  if (entry.isBlockDevice()) return 'block device';
  return 'special file';
}
