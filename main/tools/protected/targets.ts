/**
 * For the approval gate (X5): which protected paths a write, edit or apply_patch call would change, and why — on
 * the real paths (symlinks resolved by the confined walk, nothing created), so the approval card and the terminal
 * prompt can name the risk and the gate can refuse to let "auto" or "allow for this session" cover it.
 */
import { applyEdits, type EditArgs, MAX_EDIT_BYTES } from '../edit.js';
import { planPatch } from '../apply-patch.js';
import { readWholeText } from '../fs/confined.js';
import { locate } from '../fs/walk.js';
import { protectedChange } from './guard.js';

export interface ProtectedTarget {
  /** Workspace-relative real path. */
  path: string;
  why: string;
}

async function realRel(ws: string, input: string): Promise<string | undefined> {
  try {
    const found = await locate(ws, input, { allowMissing: true });
    await found.close();
    return found.rel;
  } catch {
    return undefined; // outside, unreadable…: the tool itself will refuse it
  }
}

const textOf = (ws: string, rel: string) => async (): Promise<string | undefined> =>
  readWholeText(ws, rel, 'check', MAX_EDIT_BYTES).then((r) => r.text, () => undefined);

/** The protected paths among the call's targets (empty for other tools or harmless calls). */
export async function protectedTargets(ws: string, tool: string, params: Record<string, unknown>): Promise<ProtectedTarget[]> {
  const changes: { input: string; after: string | null; before?: string }[] = [];
  try {
    if (tool === 'write' && typeof params.path === 'string') {
      changes.push({ input: params.path, after: typeof params.content === 'string' ? params.content : '' });
    } else if (tool === 'edit' && typeof params.path === 'string') {
      const before = await textOf(ws, params.path)();
      let after = before ?? '';
      try {
        after = applyEdits(before ?? '', (params.edits ?? []) as EditArgs['edits'], params.path);
      } catch {
        // edits that do not apply change nothing; the path alone still decides
      }
      changes.push({ input: params.path, after, before });
    } else if (tool === 'apply_patch' && typeof params.patch === 'string') {
      for (const p of await planPatch(ws, params.patch).catch(() => [])) changes.push({ input: p.rel, after: p.after, before: p.before });
    }
  } catch {
    return [];
  }
  const out: ProtectedTarget[] = [];
  for (const c of changes) {
    const rel = await realRel(ws, c.input);
    if (rel === undefined) continue;
    const why = await protectedChange(rel, c.after, c.before !== undefined ? async () => c.before : textOf(ws, rel));
    if (why && !out.some((t) => t.path === rel)) out.push({ path: rel, why });
  }
  return out;
}
