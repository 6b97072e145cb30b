/**
 * `read {path, offset?, limit?, lineNumbers?}`: a text file's content, a window of lines, capped in characters.
 * Opened through the confined layer (fs/confined.ts) and streamed from that descriptor with bounded memory.
 * Binary files are refused; images (PNG, JPEG, GIF, WebP) come back as images (X3).
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { openForRead, type OpenedFile } from './fs/confined.js';
import { imageLabel, imageMime, type ImageMime } from '../sessions/media-type.js';
import { imageSize } from '../sessions/image-fit.js';
import { MAX_IMAGE_BYTES } from '../sessions/attachments.js';
import { scanLines } from './fs/lines.js';
import { humanSize } from './text.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const DEFAULT_READ_CAP_CHARS = 50_000;
const BINARY_SNIFF_BYTES = 8192;

const positiveInt = (name: string, what: string) =>
  z
    .number({ error: `\`${name}\` must be a positive integer (${what})` })
    .int({ error: `\`${name}\` must be a positive integer (${what})` })
    .min(1, { error: `\`${name}\` must be a positive integer (${what})` })
    .nullish();

const Args = lazy(() => z.strictObject({
  path: z.string({ error: '`path` must be a string' }),
  offset: positiveInt('offset', '1-based line number to start at'),
  limit: positiveInt('limit', 'number of lines'),
  lineNumbers: z.boolean({ error: '`lineNumbers` must be true or false' }).nullish(),
}));

export interface ReadToolOptions {
  capChars?: number;
}

export function createReadTool(opts: ReadToolOptions = {}): Tool {
  return {
    name: 'read',
    mutating: false,
    description:
      'Read a text file in the workspace. Returns its content; long files are cut with a note. ' +
      'An image file (PNG, JPEG, GIF, WebP) is returned as an image when the model can see images. ' +
      'Use offset (1-based line) and limit (lines) to read a part of a file; lineNumbers prefixes each line ' +
      'with its number and a tab (not part of the file).',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace (or absolute inside it).' },
        offset: { type: 'integer', minimum: 1, description: 'First line to read, 1-based. Default 1.' },
        limit: { type: 'integer', minimum: 1, description: 'Maximum number of lines to read.' },
        lineNumbers: { type: 'boolean', description: 'Prefix each line with "N<tab>". Default false.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    // T4: an explicit cap wins, else the run's budget (a share of its context window), else the default.
    execute: (args, ctx) => runRead(args, ctx, opts.capChars ?? ctx.resultMaxChars ?? DEFAULT_READ_CAP_CHARS),
  };
}

/**
 * X3: an image file goes to the model as an image (a vision model sees it; attachment-send.ts gives a text-only model
 * a note with its name, type and size instead). Too large or undecodable: named, not sent.
 */
async function readImage(file: OpenedFile, mime: ImageMime): Promise<ToolOutput> {
  const what = `${file.rel}: ${imageLabel(mime)} image, ${humanSize(file.stat.size)}`;
  const details = { path: file.rel, bytes: file.stat.size, image: mime };
  if (file.stat.size > MAX_IMAGE_BYTES) return { content: `${what} — too large to show (images up to ${humanSize(MAX_IMAGE_BYTES)})`, details };
  const bytes = await file.handle.readFile();
  const size = await imageSize(bytes).catch(() => undefined);
  if (!size) return { content: `${what} — it cannot be decoded as an image, so it is not shown`, details };
  const name = file.rel.split('/').pop() ?? file.rel;
  return {
    content: `${what}, ${size.width}×${size.height} px (the image follows)`,
    details: { ...details, width: size.width, height: size.height },
    images: [{ type: 'image', mimeType: mime, data: bytes.toString('base64'), name, bytes: bytes.length, width: size.width, height: size.height }],
  };
}

async function runRead(rawArgs: unknown, ctx: ToolContext, cap: number): Promise<ToolOutput> {
  const args = parseArgs('read', Args, rawArgs);
  const file = await openForRead(ctx.workspace, args.path);
  try {
    const shown = file.rel;
    const info = file.stat;
    if (info.isDirectory()) throw new ToolError(`read: "${shown}" is a directory; use list to see its entries`);
    if (!info.isFile()) throw new ToolError(`read: "${shown}" is not a regular file`);

    const head = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await file.handle.read(head, 0, BINARY_SNIFF_BYTES, 0);
    const image = imageMime(head.subarray(0, bytesRead));
    if (image) return await readImage(file, image);
    if (head.subarray(0, bytesRead).includes(0)) {
      throw new ToolError(`read: "${shown}" looks like a binary file (NUL byte in the first 8 KB); it cannot be shown as text`);
    }
    ctx.signal.throwIfAborted();

    const start = args.offset ?? 1;
    const limit = args.limit ?? Infinity;
    const prefix = (n: number) => (args.lineNumbers ? `${n}\t` : '');
    const lines: string[] = [];
    let chars = 0;
    let lastLine = start - 1;
    let cutByCap = false;
    let cutLineChars: number | undefined;
    let collecting = true;
    const scan = await scanLines(
      file.handle,
      cap,
      (text, length, n) => {
        if (!collecting || n < start) return;
        if (n >= start + limit) {
          collecting = false;
          return;
        }
        const line = prefix(n) + text;
        const cost = prefix(n).length + length + (lines.length > 0 ? 1 : 0);
        if (chars + cost > cap) {
          if (lines.length === 0) {
            lines.push(line.slice(0, cap));
            cutLineChars = length;
            lastLine = n;
          }
          cutByCap = true;
          collecting = false;
          return;
        }
        lines.push(line);
        chars += cost;
        lastLine = n;
      },
      ctx.signal,
    );
    const totalLines = scan.lines;
    const details = { path: shown, bytes: info.size, totalLines, firstLine: start, lastLine };
    if (totalLines === 0) return { content: '[empty file]', details };
    if (start > totalLines) {
      throw new ToolError(`read: offset ${start} is past the end of "${shown}" (${totalLines} lines)`);
    }

    let content = lines.join('\n');
    const range = `lines ${start}–${lastLine} of ${totalLines}`;
    if (cutLineChars !== undefined) {
      content += `\n\n[truncated: line ${start} is ${cutLineChars} chars long, showing the first ${cap}; use offset/limit]`;
    } else if (cutByCap) {
      content += `\n\n[truncated: showing ${range}; use offset/limit]`;
    } else if (lastLine < totalLines || start > 1) {
      content += `\n\n[showing ${range}; use offset/limit to read more]`;
    }
    return { content, details };
  } finally {
    await file.handle.close();
  }
}
