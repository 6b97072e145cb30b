/**
 * Diffs for edit-like tool calls: a unified diff carried in the arguments (apply_patch, approval diffs), or one
 * computed from an edit's old/new text with the `diff` package. Lines are classified for colouring.
 */
import { createPatch } from 'diff';

export type DiffLineKind = 'add' | 'del' | 'hunk' | 'meta' | 'ctx';
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export function classifyDiff(text: string): DiffLine[] {
  return text.split('\n').map((line): DiffLine => {
    if (/^(\+\+\+|---|\*\*\*|Index:|=+$|diff )/.test(line)) return { kind: 'meta', text: line };
    if (line.startsWith('@@')) return { kind: 'hunk', text: line };
    if (line.startsWith('+')) return { kind: 'add', text: line };
    if (line.startsWith('-')) return { kind: 'del', text: line };
    return { kind: 'ctx', text: line };
  });
}

const OLD_KEYS = ['oldText', 'old_string', 'oldString', 'old', 'search'];
const NEW_KEYS = ['newText', 'new_string', 'newString', 'new', 'replace'];
const PATCH_KEYS = ['patch', 'diff', 'input'];

const str = (args: Record<string, unknown>, keys: string[]): string | undefined => {
  for (const k of keys) if (typeof args[k] === 'string') return args[k];
  return undefined;
};

/** The diff an edit / apply_patch call represents, or undefined for other tools. */
export function diffForTool(name: string, args: Record<string, unknown>): string | undefined {
  const patch = str(args, PATCH_KEYS);
  if (patch !== undefined && (name === 'apply_patch' || /^(@@|---|\*\*\* Begin Patch)/m.test(patch))) return patch;
  if (name !== 'edit' && name !== 'multi_edit') return undefined;
  const oldText = str(args, OLD_KEYS);
  const newText = str(args, NEW_KEYS);
  if (oldText === undefined || newText === undefined) return undefined;
  const path = typeof args.path === 'string' ? args.path : 'file';
  return createPatch(path, oldText.endsWith('\n') ? oldText : `${oldText}\n`, newText.endsWith('\n') ? newText : `${newText}\n`, '', '', {
    context: 3,
  })
    .split('\n')
    .filter((l) => !l.startsWith('Index:') && !/^=+$/.test(l))
    .join('\n')
    .trimEnd();
}
