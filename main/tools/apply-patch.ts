/**
 * `apply_patch {patch}`: applies a unified diff (one or several files; `--- /dev/null` creates, `+++ /dev/null`
 * deletes) with the `diff` library. Atomic at the hunk level: every hunk of every file is applied in memory first;
 * if any does not apply, nothing is written and the error names the file and hunk.
 */
import type { StructuredPatch } from 'diff';
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseArgs } from './args.js';
import { readWholeText, removeFile, writeAtomic } from './fs/confined.js';
import { diffOf, MAX_EDIT_BYTES } from './edit.js';
import { errCode } from './fs/walk.js';
import { ToolError, type Tool, type ToolContext, type ToolOutput } from './types.js';
import type { ProtectedGrants } from './protected/grants.js';
import { protectedGuard, protectedChange } from './protected/guard.js';

const Args = lazy(() => z.strictObject({
  patch: z.string({ error: '`patch` must be a string' }).min(1, { error: '`patch` must not be empty' }),
}));

export function createApplyPatchTool(opts: { grants?: ProtectedGrants } = {}): Tool {
  return {
    name: 'apply_patch',
    description:
      'Apply a unified diff (as produced by `diff -u` or `git diff`) to files in the workspace. Paths may carry ' +
      'a/ and b/ prefixes; use /dev/null as the old name to create a file and as the new name to delete one. ' +
      'Either every hunk applies or nothing is changed.',
    parameters: {
      type: 'object',
      properties: { patch: { type: 'string', description: 'The unified diff text.' } },
      required: ['patch'],
      additionalProperties: false,
    },
    execute: (args, ctx) => runApplyPatch(args, ctx, opts.grants),
  };
}

export interface Planned {
  rel: string;
  before: string;
  /** null: delete the file. */
  after: string | null;
}

const stripPrefix = (name: string | undefined): string | null => {
  if (name === undefined) return null;
  const n = name.trim().split('\t')[0]!;
  if (n === '/dev/null' || n === '') return null;
  return n.replace(/^[ab]\//, '');
};

async function parse(text: string): Promise<StructuredPatch[]> {
  const { parsePatch } = await import('diff'); // loaded at the first patch, not at start-up
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(text);
  } catch (err) {
    throw new ToolError(`apply_patch: the patch could not be parsed: ${(err as Error).message}`);
  }
  patches = patches.filter((p) => p.hunks.length > 0 || p.oldFileName || p.newFileName);
  if (patches.length === 0 || patches.every((p) => p.hunks.length === 0)) {
    throw new ToolError('apply_patch: no hunks found; expected a unified diff with ---/+++ headers and @@ hunks');
  }
  return patches;
}

/** Computes every file's new content without writing anything. */
export async function planPatch(ws: string, text: string): Promise<Planned[]> {
  const { applyPatch } = await import('diff');
  const out: Planned[] = [];
  for (const p of await parse(text)) {
    const oldName = stripPrefix(p.oldFileName);
    const newName = stripPrefix(p.newFileName);
    const target = newName ?? oldName;
    if (target === null) throw new ToolError('apply_patch: a file section names neither an old nor a new file');
    let before = '';
    if (oldName !== null) {
      before = (await readWholeText(ws, oldName, 'apply_patch', MAX_EDIT_BYTES)).text;
    } else {
      const exists = await readWholeText(ws, target, 'apply_patch', MAX_EDIT_BYTES).then(
        () => true,
        (err: unknown) => !/No such file/.test((err as Error).message) && errCode(err) !== 'ENOENT',
      );
      if (exists) throw new ToolError(`apply_patch: "${target}" already exists; the patch creates it from /dev/null`);
    }
    const after = applyPatch(before, p);
    if (after === false) {
      throw new ToolError(
        `apply_patch: the hunks for "${target}" do not apply (context or removed lines differ from the file); ` +
          'read the file and regenerate the patch; nothing was changed',
      );
    }
    out.push({ rel: target, before, after: newName === null ? null : after });
  }
  return out;
}

/** Approval preview: the combined diff of what would change, or the reason it cannot apply. */
export async function previewPatch(ws: string, rawArgs: unknown): Promise<string> {
  const args = parseArgs('apply_patch', Args, rawArgs);
  const planned = await planPatch(ws, args.patch);
  return (await Promise.all(planned.map((p) => diffOf(p.rel, p.before, p.after ?? '')))).join('\n');
}

async function runApplyPatch(rawArgs: unknown, ctx: ToolContext, grants: ProtectedGrants | undefined): Promise<ToolOutput> {
  const args = parseArgs('apply_patch', Args, rawArgs);
  const planned = await planPatch(ctx.workspace, args.patch);
  ctx.signal.throwIfAborted();
  // X5: a protected file without the person's approval stops the whole patch before anything is written.
  for (const p of planned) {
    const why = await protectedChange(p.rel, p.after, async () => p.before);
    if (why && !grants?.has(ctx.workspace, p.rel)) {
      throw new ToolError(`apply_patch: "${p.rel}" is a protected path: ${why}. Nothing was changed; only the person can allow it, by approving this exact change when asked.`);
    }
  }
  const guard = protectedGuard(ctx.workspace, 'apply_patch', grants);
  const lines: string[] = [];
  for (const p of planned) {
    if (p.after === null) {
      await removeFile(ctx.workspace, p.rel, 'apply_patch', { guard });
      lines.push(`deleted ${p.rel}`);
    } else {
      const r = await writeAtomic(ctx.workspace, p.rel, p.after, 'apply_patch', { guard });
      lines.push(`${r.created ? 'created' : 'patched'} ${r.rel}`);
    }
  }
  return { content: `Applied the patch: ${lines.join(', ')}`, details: { files: planned.map((p) => p.rel) } };
}
