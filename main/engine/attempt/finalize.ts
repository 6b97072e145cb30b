/**
 * before_agent_finalize (E19, inventory §18): before a natural final answer is accepted, hooks may ask for a
 * revision; the attempt then sends one more user turn with the request and loops. Never on abort; at most
 * MAX_FINALIZE_REVISIONS per run, after which the answer is accepted as it is.
 */
import type { HookContext } from './hooks.js';
import type { HookRunner } from './hook-runner.js';

export const MAX_FINALIZE_REVISIONS = 3;
export const REVISION_PREFIX = 'Before accepting the previous final answer, apply this revision request:';

/** The revision prompt to send, or undefined to accept the answer. */
export async function revisionRequest(
  hooks: HookRunner,
  state: { finalText: string; revisions: number; aborted: boolean },
  ctx: HookContext,
): Promise<string | undefined> {
  if (state.aborted || state.revisions >= MAX_FINALIZE_REVISIONS || !hooks.has('before_agent_finalize')) return undefined;
  const decision = await hooks.finalize({ finalText: state.finalText, revisions: state.revisions }, ctx);
  if (decision?.action !== 'revise') return undefined;
  const request = (decision.retry?.instruction ?? decision.reason ?? '').trim();
  return request ? `${REVISION_PREFIX} ${request}` : undefined;
}
