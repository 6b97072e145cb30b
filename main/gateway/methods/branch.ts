/**
 * `sessions.branch` (issue 18 items 8 and 15): the chat continues from before one of the person's messages —
 * Edit (then the edited text is sent), Regenerate and Retry (the same text sent again). Refused while the chat
 * has a run. See main/sessions/edit-branch.ts.
 */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { Methods } from '../../../preload/contract.js';
import { BranchRefusedError, branchBefore } from '../../sessions/edit-branch.js';
import type { SessionStore } from '../../sessions/store.js';
import { sessionKey, validatedMethods } from '../params.js';
import { GatewayError } from '../types.js';
import { toSummary } from './sessions.js';

const schemas = lazy(() => ({
  'sessions.branch': z
    .object({ sessionKey, fromEnd: z.number().int().min(0), text: z.string().max(1_000_000), keep: z.boolean() })
    .strict(),
} as const));

export interface BranchMethodDeps {
  store: SessionStore;
  /** Sessions with a run in this process. */
  busy: (sessionKey: string) => boolean;
  now: () => number;
}

export function branchMethods(d: BranchMethodDeps) {
  return validatedMethods<typeof schemas, { 'sessions.branch': Methods['sessions.branch'][1] }>(schemas, {
    async 'sessions.branch'(p) {
      if (d.busy(p.sessionKey)) throw new GatewayError('bad_request', 'A reply is running in this chat: stop it first, then edit or regenerate.');
      try {
        const b = await branchBefore(d.store, p.sessionKey, { fromEnd: p.fromEnd, text: p.text }, p.keep, d.now());
        return { session: toSummary(b.session), ...(b.kept ? { kept: toSummary(b.kept) } : {}) };
      } catch (err) {
        if (err instanceof BranchRefusedError) throw new GatewayError('bad_request', err.message);
        throw err;
      }
    },
  });
}
