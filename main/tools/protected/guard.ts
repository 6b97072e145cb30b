/**
 * The file tools' side of protected paths (X5): write, edit and apply_patch run every target through this guard
 * at the moment of writing, on the real path the confined walk found (fs/confined.ts). A protected path is
 * written only with a grant the approval gate recorded for it (grants.ts); otherwise the call fails and says why.
 */
import { ToolError } from '../types.js';
import { changedLifecycleScripts } from './package-scripts.js';
import type { ProtectedGrants } from './grants.js';
import { protectedReason } from './rules.js';

/** Called by writeAtomic / removeFile before anything changes. `after` is null for a deletion. */
export type WriteGuard = (rel: string, after: string | Buffer | null, before: () => Promise<string | undefined>) => Promise<void>;

/** Why this change of `rel` needs the person's explicit approval (package.json: only for lifecycle scripts). */
export async function protectedChange(rel: string, after: string | Buffer | null, before: () => Promise<string | undefined>): Promise<string | undefined> {
  const why = protectedReason(rel);
  if (why) return why;
  if (rel.split('/').pop()?.toLowerCase() !== 'package.json') return undefined;
  const next = after === null ? '{}' : after.toString();
  const changed = changedLifecycleScripts(await before(), next);
  if (changed.length === 0) return undefined;
  return `it changes the install-time scripts ${changed.join(', ')}, which npm runs by itself at the next install — outside the sandbox`;
}

export function protectedGuard(workspace: string, tool: string, grants: ProtectedGrants | undefined): WriteGuard {
  return async (rel, after, before) => {
    const why = await protectedChange(rel, after, before);
    if (!why) return;
    if (grants?.take(workspace, rel)) return;
    throw new ToolError(
      `${tool}: "${rel}" is a protected path and was not changed: ${why}. Only the person can allow it, by approving this ` +
        'exact change when asked; tell them what you want to change there and why.',
    );
  };
}
