/**
 * `edit {path, edits: [{oldText, newText, replaceAll?}]}`: exact-text replacement in one file. Every edit must
 * match exactly once (unless replaceAll); the edits apply in order to the result of the previous one, and the file
 * is written only when all of them apply (atomic temp file + rename through the confined layer).
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { readWholeText, writeAtomic } from './fs/confined.js';
import { headTail } from './text.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';
import type { ProtectedGrants } from './protected/grants.js';
import { protectedGuard } from './protected/guard.js';

/** Files larger than this are edited with exec (sed, a script) rather than loaded whole. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;
const DIFF_CAP_CHARS = 8_000;

const Edit = lazy(() => z.strictObject({
  oldText: z.string({ error: '`oldText` must be a string' }).min(1, { error: '`oldText` must not be empty' }),
  newText: z.string({ error: '`newText` must be a string' }),
  replaceAll: z.boolean({ error: '`replaceAll` must be true or false' }).nullish(),
}));
const Args = lazy(() => z.strictObject({
  path: z.string({ error: '`path` must be a string' }),
  edits: z.array(Edit, { error: '`edits` must be an array of {oldText, newText}' }).min(1, { error: '`edits` must not be empty' }),
}));
export type EditArgs = z.infer<typeof Args>;

export function createEditTool(opts: { grants?: ProtectedGrants } = {}): Tool {
  return {
    name: 'edit',
    description:
      'Edit a text file by exact replacement. Each edit replaces oldText (copied exactly from the file, ' +
      'including whitespace) with newText; oldText must occur exactly once unless replaceAll is true. Several ' +
      'edits apply in order; if any fails, the file is left unchanged.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace.' },
        edits: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              oldText: { type: 'string', description: 'Exact text to replace (unique in the file).' },
              newText: { type: 'string', description: 'Replacement text.' },
              replaceAll: { type: 'boolean', description: 'Replace every occurrence. Default false.' },
            },
            required: ['oldText', 'newText'],
            additionalProperties: false,
          },
        },
      },
      required: ['path', 'edits'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runEdit(args, ctx, opts.grants),
    changesOnly: (args) => args.path,
  };
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** Applies the edits to `text` (pure). Throws a ToolError naming the failing edit and the match count. */
export function applyEdits(text: string, edits: EditArgs['edits'], shown: string): string {
  let out = text;
  edits.forEach((e, i) => {
    const which = edits.length > 1 ? `edit ${i + 1} of ${edits.length}: ` : '';
    const n = countOccurrences(out, e.oldText);
    if (n === 0) {
      const crlfHint = out.includes('\r\n') && e.oldText.includes('\n') && !e.oldText.includes('\r\n')
        ? ' (the file uses CRLF line endings)'
        : '';
      throw new ToolError(`edit: ${which}oldText was not found in "${shown}"${crlfHint}; read the file and copy the text exactly; nothing was changed`);
    }
    if (n > 1 && !e.replaceAll) {
      throw new ToolError(
        `edit: ${which}oldText matches ${n} times in "${shown}"; include more surrounding lines to make it unique, or set replaceAll; nothing was changed`,
      );
    }
    out = e.replaceAll ? out.split(e.oldText).join(e.newText) : out.replace(e.oldText, () => e.newText);
  });
  return out;
}

/** A unified diff of a change (for the model's result and the approval card), capped. */
export async function diffOf(rel: string, before: string, after: string): Promise<string> {
  const { createTwoFilesPatch } = await import('diff'); // loaded at the first diff, not at start-up
  const patch = createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before, after, undefined, undefined, { context: 3 });
  return headTail(patch.split('\n').slice(2).join('\n').trimEnd(), DIFF_CAP_CHARS);
}

/** What the file would become (for approval previews): the diff, or an error message. */
export async function previewEdit(ws: string, rawArgs: unknown): Promise<string> {
  const args = parseArgs('edit', Args, rawArgs);
  const file = await readWholeText(ws, args.path, 'edit', MAX_EDIT_BYTES);
  return await diffOf(file.rel, file.text, applyEdits(file.text, args.edits, file.rel));
}

async function runEdit(rawArgs: unknown, ctx: ToolContext, grants: ProtectedGrants | undefined): Promise<ToolOutput> {
  const args = parseArgs('edit', Args, rawArgs);
  const file = await readWholeText(ctx.workspace, args.path, 'edit', MAX_EDIT_BYTES);
  const next = applyEdits(file.text, args.edits, file.rel);
  if (next === file.text) return { content: `No change: the edits leave "${file.rel}" as it was`, details: { path: file.rel } };
  ctx.signal.throwIfAborted();
  await writeAtomic(ctx.workspace, file.rel, next, 'edit', { guard: protectedGuard(ctx.workspace, 'edit', grants) });
  const diff = await diffOf(file.rel, file.text, next);
  return {
    content: `Edited ${file.rel} (${args.edits.length} edit${args.edits.length > 1 ? 's' : ''}):\n${diff}`,
    details: { path: file.rel, edits: args.edits.length, diff },
  };
}
