/**
 * `find {pattern, path?, limit?}`: files (and folders) whose path matches a glob, .gitignore honoured
 * (fs/tree.ts). Patterns are confined: no absolute patterns, no `..` segments.
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { openFolder } from './fs/confined.js';
import { listTree } from './fs/tree.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';

export const DEFAULT_FIND_LIMIT = 200;
const MAX_FIND_LIMIT = 2000;

const Args = lazy(() => z.strictObject({
  pattern: z.string({ error: '`pattern` must be a string' }).min(1, { error: '`pattern` must not be empty' }),
  path: z.string({ error: '`path` must be a string' }).nullish(),
  limit: z
    .number({ error: '`limit` must be a positive integer' })
    .int({ error: '`limit` must be a positive integer' })
    .min(1, { error: '`limit` must be a positive integer' })
    .nullish(),
}));

/** Refuses glob patterns that could reach outside the searched folder. */
export function checkPattern(tool: string, pattern: string): void {
  if (pattern.includes('\0')) throw new ToolError(`${tool}: the pattern contains a NUL byte`);
  if (pattern.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pattern)) {
    throw new ToolError(`${tool}: the pattern must be relative to the searched folder (use \`path\` to pick the folder)`);
  }
  if (pattern.split(/[\\/]/).includes('..')) throw new ToolError(`${tool}: the pattern must not contain '..'`);
}

export function createFindTool(): Tool {
  return {
    name: 'find',
    mutating: false,
    description:
      'Find files in the workspace by glob pattern (e.g. "**/*.ts", "src/**/test_*.py"). Files ignored by ' +
      '.gitignore, .git and node_modules are skipped. Folders end in "/". Results are sorted and capped.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob pattern relative to `path`.' },
        path: { type: 'string', description: "Folder to search in, relative to the workspace. Default '.'." },
        limit: { type: 'integer', minimum: 1, maximum: MAX_FIND_LIMIT, description: `Maximum results (default ${DEFAULT_FIND_LIMIT}).` },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runFind(args, ctx),
  };
}

async function runFind(rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const args = parseArgs('find', Args, rawArgs);
  checkPattern('find', args.pattern);
  const limit = Math.min(args.limit ?? DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT);
  const base = await openFolder(ctx.workspace, args.path ?? '.', 'find');
  await base.close();
  const all = await listTree({ ws: ctx.workspace, baseRel: base.rel, pattern: args.pattern, signal: ctx.signal, includeDirs: true });
  const shown = all.slice(0, limit);
  let content = shown.length === 0 ? `No files match "${args.pattern}" in ${base.rel}` : shown.join('\n');
  if (all.length > shown.length) content += `\n[… ${all.length - shown.length} more not shown (${all.length} total); narrow the pattern]`;
  return { content, details: { path: base.rel, total: all.length, shown: shown.length } };
}
