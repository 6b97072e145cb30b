/**
 * Gateway methods of X2 checkpoints: list, preview (what a restore would change), diff of one file, restore
 * (files / conversation / both), undo of the last restore, disk use. Every request is validated here; a restore
 * while the session has a run is refused with one line.
 */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { Methods } from '../../../preload/contract.js';
import { CheckpointNotFoundError, type CheckpointStore } from '../../checkpoints/store.js';
import { RestoreRefusedError, type CheckpointService } from '../../checkpoints/service.js';
import { sessionKey, validatedMethods } from '../params.js';
import { GatewayError } from '../types.js';

const id = lazy(() => z.string().trim().min(1, 'id must not be empty').max(100));

const schemas = lazy(() => ({
  'checkpoints.list': z.object({ sessionKey }).strict(),
  'checkpoints.preview': z.object({ sessionKey, id }).strict(),
  'checkpoints.diff': z.object({ sessionKey, id, path: z.string().min(1).max(4096) }).strict(),
  'checkpoints.restore': z.object({ sessionKey, id, mode: z.enum(['files', 'both', 'conversation']) }).strict(),
  'checkpoints.undo': z.object({ sessionKey }).strict(),
  'checkpoints.usage': z.object({}).strict(),
} as const));

type CheckpointMethod = keyof typeof schemas;

export interface CheckpointMethodDeps {
  service: CheckpointService;
  store: CheckpointStore;
  /** Sessions with a run in this process (refused at once; other processes' runs through the session lock). */
  busy: (sessionKey: string) => boolean;
  /** Lines about operations finished after a crash (shown once by the window). */
  notices: readonly string[];
}

/** Errors a person can act on become bad_request / not_found with their own one line. */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof CheckpointNotFoundError) throw new GatewayError('not_found', err.message);
    if (err instanceof RestoreRefusedError || (err as Error)?.name === 'CorruptObjectError' || (err as Error)?.name === 'RestoreFailedError') throw new GatewayError('bad_request', (err as Error).message);
    throw err;
  }
}

export function checkpointMethods(deps: CheckpointMethodDeps) {
  const refuseIfBusy = (key: string) => {
    if (deps.busy(key)) throw new GatewayError('bad_request', `A run is active on session "${key}": restore when it has finished (or stop it first).`);
  };
  const handlers: { [M in CheckpointMethod]: (p: z.infer<(typeof schemas)[M]>) => Promise<Methods[M][1]> } = {
    'checkpoints.list': async (p) => ({ ...(await deps.service.list(p.sessionKey, { withMessages: true })), notices: [...deps.notices] }),
    'checkpoints.preview': (p) => mapped(() => deps.service.preview(p.sessionKey, p.id)),
    'checkpoints.diff': (p) => mapped(() => deps.service.diff(p.sessionKey, p.id, p.path)),
    'checkpoints.restore': (p) =>
      mapped(() => {
        refuseIfBusy(p.sessionKey);
        return deps.service.restore(p.sessionKey, p.id, p.mode);
      }),
    'checkpoints.undo': (p) =>
      mapped(() => {
        refuseIfBusy(p.sessionKey);
        return deps.service.undo(p.sessionKey);
      }),
    'checkpoints.usage': () => deps.store.usage(),
  };
  return validatedMethods<typeof schemas, { [M in CheckpointMethod]: Methods[M][1] }>(schemas, handlers);
}
