/** `read {path, offset?, limit?}`: a text file's content, a window of lines, capped in characters. */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { parseArgs } from './args.js';
import { displayPath, resolveInWorkspace } from './paths.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const DEFAULT_READ_CAP_CHARS = 50_000;
const BINARY_SNIFF_BYTES = 8192;

const positiveInt = (name: string, what: string) =>
  z
    .number({ error: `\`${name}\` must be a positive integer (${what})` })
    .int({ error: `\`${name}\` must be a positive integer (${what})` })
    .min(1, { error: `\`${name}\` must be a positive integer (${what})` })
    .nullish();

const Args = z.strictObject({
  path: z.string({ error: '`path` must be a string' }),
  offset: positiveInt('offset', '1-based line number to start at'),
  limit: positiveInt('limit', 'number of lines'),
});

export interface ReadToolOptions {
  capChars?: number;
}

export function createReadTool(opts: ReadToolOptions = {}): Tool {
  return {
    name: 'read',
    description:
      'Read a text file in the workspace. Returns its content; long files are cut with a note. ' +
      'Use offset (1-based line) and limit (lines) to read a part of a file.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace (or absolute inside it).' },
        offset: { type: 'integer', minimum: 1, description: 'First line to read, 1-based. Default 1.' },
        limit: { type: 'integer', minimum: 1, description: 'Maximum number of lines to read.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    // T4: an explicit cap wins, else the run's budget (a share of its context window), else the default.
    execute: (args, ctx) => runRead(args, ctx, opts.capChars ?? ctx.resultMaxChars ?? DEFAULT_READ_CAP_CHARS),
  };
}

async function runRead(rawArgs: unknown, ctx: ToolContext, cap: number): Promise<ToolOutput> {
  const args = parseArgs('read', Args, rawArgs);
  const file = await resolveInWorkspace(ctx.workspace, args.path);
  const shown = displayPath(ctx.workspace, file);
  const info = await stat(file);
  if (info.isDirectory()) throw new ToolError(`read: "${shown}" is a directory; use list to see its entries`);
  if (!info.isFile()) throw new ToolError(`read: "${shown}" is not a regular file`);
  if (await looksBinary(file)) {
    throw new ToolError(`read: "${shown}" looks like a binary file (NUL byte in the first 8 KB); it cannot be shown as text`);
  }
  ctx.signal.throwIfAborted();

  const start = args.offset ?? 1;
  const w = await readWindow(file, start, args.limit ?? Infinity, cap, ctx.signal);
  const details = { path: shown, bytes: info.size, totalLines: w.totalLines, firstLine: start, lastLine: w.lastLine };
  if (w.totalLines === 0) return { content: '[empty file]', details };
  if (start > w.totalLines) {
    throw new ToolError(`read: offset ${start} is past the end of "${shown}" (${w.totalLines} lines)`);
  }

  let content = w.lines.join('\n');
  const range = `lines ${start}–${w.lastLine} of ${w.totalLines}`;
  if (w.cutLineChars !== undefined) {
    content += `\n\n[truncated: line ${start} is ${w.cutLineChars} chars long, showing the first ${cap}; use offset/limit]`;
  } else if (w.cutByCap) {
    content += `\n\n[truncated: showing ${range}; use offset/limit]`;
  } else if (w.lastLine < w.totalLines || start > 1) {
    content += `\n\n[showing ${range}; use offset/limit to read more]`;
  }
  return { content, details };
}

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buf, 0, BINARY_SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

interface Window {
  lines: string[];
  totalLines: number;
  /** Last line number included (start - 1 when nothing was included). */
  lastLine: number;
  /** The window stopped early because of the character cap. */
  cutByCap: boolean;
  /** Set when the first line alone exceeded the cap and was cut: its full length. */
  cutLineChars?: number;
}

/** Streams the file line by line (bounded memory apart from one line), counting all lines. */
async function readWindow(file: string, start: number, limit: number, cap: number, signal: AbortSignal): Promise<Window> {
  const input = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  const w: Window = { lines: [], totalLines: 0, lastLine: start - 1, cutByCap: false };
  let chars = 0;
  let collecting = true;
  try {
    for await (const line of lines) {
      w.totalLines += 1;
      if (w.totalLines % 4096 === 0) signal.throwIfAborted();
      if (!collecting || w.totalLines < start) continue;
      if (w.totalLines >= start + limit) {
        collecting = false;
        continue;
      }
      const cost = line.length + (w.lines.length > 0 ? 1 : 0);
      if (chars + cost > cap) {
        if (w.lines.length === 0) {
          w.lines.push(line.slice(0, cap));
          w.cutLineChars = line.length;
          w.lastLine = w.totalLines;
        }
        w.cutByCap = true;
        collecting = false;
        continue;
      }
      w.lines.push(line);
      chars += cost;
      w.lastLine = w.totalLines;
    }
  } finally {
    lines.close();
    input.destroy();
  }
  return w;
}
