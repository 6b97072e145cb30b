/**
 * `grep {pattern, path?, glob?, ignoreCase?, literal?, context?, maxMatches?}`: regular-expression search over
 * the workspace, .gitignore honoured (fs/tree.ts), binary files skipped, each file opened and streamed through
 * the confined layer. Output is ripgrep-like: `path:line:text` for matches, `path-line-text` for context lines,
 * `--` between separate groups; capped in matches with a note.
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { openForRead } from './fs/confined.js';
import { scanLines } from './fs/lines.js';
import { listTree } from './fs/tree.js';
import { checkPattern } from './find.js';
import { openFolder } from './fs/confined.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const DEFAULT_GREP_MATCHES = 100;
const MAX_GREP_MATCHES = 1000;
const MAX_CONTEXT = 10;
/** Lines are matched and shown up to this many characters. */
const LINE_CHARS = 500;
const MAX_FILE_BYTES = 20 * 1024 * 1024;

const Args = lazy(() => z.strictObject({
  pattern: z.string({ error: '`pattern` must be a string' }).min(1, { error: '`pattern` must not be empty' }),
  path: z.string({ error: '`path` must be a string' }).nullish(),
  glob: z.string({ error: '`glob` must be a string' }).nullish(),
  ignoreCase: z.boolean({ error: '`ignoreCase` must be true or false' }).nullish(),
  literal: z.boolean({ error: '`literal` must be true or false' }).nullish(),
  context: z
    .number({ error: `\`context\` must be an integer from 0 to ${MAX_CONTEXT}` })
    .int({ error: `\`context\` must be an integer from 0 to ${MAX_CONTEXT}` })
    .min(0, { error: `\`context\` must be an integer from 0 to ${MAX_CONTEXT}` })
    .max(MAX_CONTEXT, { error: `\`context\` must be an integer from 0 to ${MAX_CONTEXT}` })
    .nullish(),
  maxMatches: z
    .number({ error: '`maxMatches` must be a positive integer' })
    .int({ error: '`maxMatches` must be a positive integer' })
    .min(1, { error: '`maxMatches` must be a positive integer' })
    .nullish(),
}));

export function createGrepTool(): Tool {
  return {
    name: 'grep',
    mutating: false,
    description:
      'Search file contents in the workspace with a JavaScript regular expression. Skips binary files and ' +
      'files ignored by .gitignore. Returns "path:line:text" for matches and "path-line-text" for context lines.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression (or plain text with literal: true).' },
        path: { type: 'string', description: "Folder or file to search, relative to the workspace. Default '.'." },
        glob: { type: 'string', description: 'Only files matching this glob, e.g. "**/*.ts".' },
        ignoreCase: { type: 'boolean', description: 'Case-insensitive. Default false.' },
        literal: { type: 'boolean', description: 'Treat the pattern as plain text. Default false.' },
        context: { type: 'integer', minimum: 0, maximum: MAX_CONTEXT, description: 'Lines of context around each match.' },
        maxMatches: { type: 'integer', minimum: 1, maximum: MAX_GREP_MATCHES, description: `Stop after this many matches (default ${DEFAULT_GREP_MATCHES}).` },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runGrep(args, ctx),
  };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function runGrep(rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const args = parseArgs('grep', Args, rawArgs);
  let re: RegExp;
  try {
    re = new RegExp(args.literal ? escapeRegExp(args.pattern) : args.pattern, args.ignoreCase ? 'i' : '');
  } catch (err) {
    throw new ToolError(`grep: invalid regular expression: ${(err as Error).message}; set literal: true to search plain text`);
  }
  const globPattern = args.glob ?? '**/*';
  checkPattern('grep', globPattern);
  const maxMatches = Math.min(args.maxMatches ?? DEFAULT_GREP_MATCHES, MAX_GREP_MATCHES);
  const context = args.context ?? 0;

  // A file path searches that file alone; a folder searches its tree.
  let files: string[];
  let baseRel: string;
  try {
    const base = await openFolder(ctx.workspace, args.path ?? '.', 'grep');
    await base.close();
    baseRel = base.rel;
    files = await listTree({ ws: ctx.workspace, baseRel, pattern: globPattern, signal: ctx.signal });
  } catch (err) {
    if (!(err instanceof ToolError) || !/is a file, not a directory/.test(err.message)) throw err;
    const f = await openForRead(ctx.workspace, args.path ?? '.');
    await f.handle.close();
    baseRel = f.rel;
    files = [f.rel];
  }

  const out: string[] = [];
  let matches = 0;
  let filesWithMatches = 0;
  let skippedBinary = 0;
  for (const rel of files) {
    if (matches >= maxMatches) break;
    ctx.signal.throwIfAborted();
    let file;
    try {
      file = await openForRead(ctx.workspace, rel);
    } catch {
      continue; // vanished, or changed into something outside: skip it
    }
    try {
      if (!file.stat.isFile() || file.stat.size > MAX_FILE_BYTES) continue;
      const head = Buffer.alloc(8192);
      const { bytesRead } = await file.handle.read(head, 0, head.length, 0);
      if (head.subarray(0, bytesRead).includes(0)) {
        skippedBinary += 1;
        continue;
      }
      const before: Array<[number, string]> = [];
      let afterLeft = 0;
      let lastPrinted = 0;
      let fileMatched = false;
      await scanLines(
        file.handle,
        LINE_CHARS,
        (text, _len, n) => {
          const hit = re.test(text);
          if (hit && matches < maxMatches) {
            if (!fileMatched) {
              fileMatched = true;
              filesWithMatches += 1;
            }
            const firstShown = before.length > 0 ? before[0]![0] : n;
            // Groups separated by '--' as ripgrep does, only when context lines are shown.
            const gap = lastPrinted === 0 || firstShown > lastPrinted + 1;
            if (context > 0 && gap && out.length > 0) out.push('--');
            for (const [ln, t] of before) out.push(`${rel}-${ln}-${t}`);
            before.length = 0;
            out.push(`${rel}:${n}:${text}`);
            matches += 1;
            lastPrinted = n;
            afterLeft = context;
            return;
          }
          if (afterLeft > 0) {
            out.push(`${rel}-${n}-${text}`);
            lastPrinted = n;
            afterLeft -= 1;
            return;
          }
          if (matches >= maxMatches) return false;
          if (context > 0) {
            before.push([n, text]);
            if (before.length > context) before.shift();
          }
        },
        ctx.signal,
      );
    } finally {
      await file.handle.close();
    }
  }

  const notes: string[] = [];
  if (matches >= maxMatches) notes.push(`[stopped at ${maxMatches} matches; narrow the pattern or raise maxMatches]`);
  if (skippedBinary > 0) notes.push(`[${skippedBinary} binary file${skippedBinary > 1 ? 's' : ''} skipped]`);
  const body = out.length === 0 ? `No matches for /${re.source}/ in ${baseRel}` : out.join('\n');
  return {
    content: [body, ...notes].join('\n'),
    details: { path: baseRel, matches, files: filesWithMatches, searched: files.length },
  };
}
