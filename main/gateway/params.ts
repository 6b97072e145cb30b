/** Validation of every request that reaches the gateway (D2: requests come from an untrusted renderer or socket). */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { parseModelRef } from '../engine/models.js';
import { GatewayError } from './types.js';

export const thinking = lazy(() => z.enum(['off', 'minimal', 'low', 'medium', 'high']));
export const sessionKey = lazy(() => z
  .string()
  .trim()
  .min(1, 'sessionKey must not be empty')
  .max(200, 'sessionKey is too long (max 200 characters)'));

/** A "provider/model" ref, checked by the engine's own parser (its error message is the issue's). */
export const modelRef = lazy(() => z.string().superRefine((ref, ctx) => {
  try {
    parseModelRef(ref);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
}));

export const paramSchemas = lazy(() => ({
  agent: z
    .object({
      message: z.string().refine((s) => s.trim().length > 0, 'message must not be empty').pipe(z.string().max(1_000_000)),
      sessionKey: sessionKey.optional(),
      model: modelRef.optional(),
      thinking: thinking.optional(),
      timeoutSeconds: z.number().positive().max(7 * 24 * 3600).optional(),
      idempotencyKey: z.string().min(1).max(200).optional(),
      cwd: z.string().min(1).max(4096).optional(),
      queueMode: z.enum(['followup', 'collect', 'steer', 'interrupt']).optional(),
      extraSystemPrompt: z.string().max(20_000, 'extraSystemPrompt is too long (max 20 000 characters)').optional(),
      verbose: z.boolean().optional(),
      attachments: z
        .array(z.object({ id: z.string().regex(/^[0-9a-f]{64}$/, 'not an attachment id'), name: z.string().max(1000).optional(), mention: z.enum(['file', 'folder']).optional() }).strict())
        .max(20, 'at most 20 attachments per message')
        .optional(),
    })
    .strict(),
  'agent.wait': z.object({ runId: z.string().min(1), timeoutMs: z.number().int().min(0).max(24 * 3600 * 1000).optional() }).strict(),
  'agent.result': z.object({ runId: z.string().min(1) }).strict(),
  'agent.abort': z.object({ runId: z.string().min(1) }).strict(),
  'commands.run': z.object({ sessionKey, text: z.string().max(10_000) }).strict(),
  'models.list': z.object({}).strict(),
  'app.info': z.object({}).strict(),
  'approvals.respond': z
    .object({
      approvalId: z.string().min(1).max(100),
      decision: z.enum(['allow_once', 'allow_session', 'deny']),
      reason: z.string().max(2000).optional(),
      unasked: z.boolean().optional(),
    })
    .strict(),
  'auth.status': z.object({}).strict(),
  'approvals.list': z.object({ sessionKey: z.string().min(1).max(200).optional() }).strict(),
} as const));

export type ParamMethod = keyof typeof paramSchemas;

export function parseParams<M extends ParamMethod>(method: M, params: unknown): z.infer<(typeof paramSchemas)[M]> {
  return parseWith(paramSchemas[method], method, params) as z.infer<(typeof paramSchemas)[M]>;
}

/** Validates `params` against `schema`; a failure is a bad_request naming the method and the field. */
export function parseWith<S extends z.ZodType>(schema: S, method: string, params: unknown): z.infer<S> {
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new GatewayError('bad_request', `${method}: ${where}${issue?.message ?? 'invalid parameters'}`);
  }
  return result.data as z.infer<S>;
}

/** Binds handlers to their zod schemas: each method validates its raw params, then runs. */
export function validatedMethods<S extends Record<string, z.ZodType>, R extends { [K in keyof S]: unknown }>(
  schemas: S,
  handlers: { [K in keyof S]: (p: z.infer<S[K]>) => Promise<R[K]> },
): { [K in keyof S]: (raw: unknown) => Promise<R[K]> } {
  const out = {} as { [K in keyof S]: (raw: unknown) => Promise<R[K]> };
  // By the handlers' names: a lazy table of schemas (engine/lazy.ts) is built at the first request, not here.
  for (const name of Object.keys(handlers) as (keyof S & string)[]) {
    out[name] = (raw) => handlers[name](parseWith(schemas[name]!, name, raw));
  }
  return out;
}
