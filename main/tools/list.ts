/**
 * `list {path?}`: the entries of one directory, sorted by name. Folders end in '/', files show their size,
 * symlinks show where they point (never followed outside: `name -> (outside workspace)`). Nothing is hidden.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { openForRead, type OpenedFile } from './fs/confined.js';
import { locate, type Located } from './fs/walk.js';
import { hiddenFolderOf } from './fs/hidden.js';
import { humanSize } from './text.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const MAX_LIST_ENTRIES = 500;

const Args = lazy(() => z.strictObject({
  path: z.string({ error: '`path` must be a string' }).nullish(),
}));

export interface ListToolOptions {
  maxEntries?: number;
}

export function createListTool(opts: ListToolOptions = {}): Tool {
  const maxEntries = opts.maxEntries ?? MAX_LIST_ENTRIES;
  return {
    name: 'list',
    mutating: false,
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
  const found = await locate(ctx.workspace, args.path ?? '.');
  try {
    const shown = found.rel;
    if (found.name !== null) throw new ToolError(`list: "${shown}" is a file, not a directory; use read to see it`);
    // readdir through the verified folder's descriptor path: a folder swapped meanwhile is not followed.
    const entries = (await readdir(found.dirPath(), { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    const visible = entries.slice(0, maxEntries);
    const lines: string[] = [];
    for (const entry of visible) {
      ctx.signal.throwIfAborted();
      lines.push(await describe(ctx.workspace, found, entry));
    }
    if (entries.length > visible.length) {
      lines.push(`[… ${entries.length - visible.length} more entries not shown (${entries.length} total)]`);
    }
    const content = lines.length === 0 ? '[empty directory]' : lines.join('\n');
    return { content, details: { path: shown, total: entries.length, shown: visible.length } };
  } finally {
    await found.close();
  }
}

async function describe(workspace: string, dir: Located, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) {
    const hidden = hiddenFolderOf(path.join(workspace, dir.rel, entry.name));
    return hidden !== undefined ? `${entry.name}/  (AgentDesk's data folder: not accessible)` : `${entry.name}/`;
  }
  if (entry.isFile()) {
    const size = await lstat(dir.childPath(entry.name)).then((s) => humanSize(s.size), () => '?');
    return `${entry.name}  (${size})`;
  }
  if (entry.isSymbolicLink()) {
    const rel = dir.rel === '.' ? entry.name : `${dir.rel}/${entry.name}`;
    let target: OpenedFile;
    try {
      target = await openForRead(workspace, rel);
    } catch (err) {
      const msg = err instanceof Error ? err.message : '';
      return /outside the workspace/.test(msg) ? `${entry.name} -> (outside workspace)` : `${entry.name} -> (broken link)`;
    }
    await target.handle.close();
    if (target.stat.isDirectory()) return `${entry.name}/ -> ${target.rel}/`;
    return target.stat.isFile()
      ? `${entry.name} -> ${target.rel}  (${humanSize(target.stat.size)})`
      : `${entry.name} -> ${target.rel}`;
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
