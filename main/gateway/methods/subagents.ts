/** Gateway methods for subagents (E20): subagents.list / subagents.abort / subagents.steer. */
import { z } from 'zod';
import { lazy } from '../../engine/lazy.js';
import type { Subagents } from '../../engine/run/subagents.js';
import { parseWith, sessionKey } from '../params.js';
import { GatewayError } from '../types.js';
import type { Handler } from './queue.js';

export const subagentSchemas = lazy(() => ({
  'subagents.list': z.object({ parentSessionKey: sessionKey.optional() }).strict(),
  'subagents.abort': z.object({ id: z.string().min(1).max(200) }).strict(),
  'subagents.steer': z
    .object({
      id: z.string().min(1).max(200),
      message: z.string().refine((s) => s.trim().length > 0, 'message must not be empty').pipe(z.string().max(1_000_000)),
    })
    .strict(),
}));

export function subagentMethods(subagents: Subagents): {
  'subagents.list': Handler<'subagents.list'>;
  'subagents.abort': Handler<'subagents.abort'>;
  'subagents.steer': Handler<'subagents.steer'>;
} {
  return {
    async 'subagents.list'(raw) {
      const p = parseWith(subagentSchemas['subagents.list'], 'subagents.list', raw);
      return subagents.list(p.parentSessionKey);
    },
    async 'subagents.abort'(raw) {
      const p = parseWith(subagentSchemas['subagents.abort'], 'subagents.abort', raw);
      return { aborted: subagents.abort(p.id) };
    },
    async 'subagents.steer'(raw) {
      const p = parseWith(subagentSchemas['subagents.steer'], 'subagents.steer', raw);
      try {
        return await subagents.steer(p.id, p.message);
      } catch (err) {
        if ((err as Error).name === 'SubagentNotFoundError') throw new GatewayError('not_found', (err as Error).message);
        throw err;
      }
    },
  };
}
