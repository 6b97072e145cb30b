/**
 * Shape checks for transcript lines. Only the fields the engine relies on are checked; unknown extra fields are
 * allowed (a newer app may add some) and are kept, because the loader returns the parsed line, not zod's output.
 */
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite);

const usageSchema = z.looseObject({
  input: finite,
  output: finite,
  cacheRead: finite,
  cacheWrite: finite,
  total: finite,
});

const blockSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({
    type: z.literal('thinking'),
    thinking: z.string(),
    signature: z.string().optional(),
    redacted: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal('toolCall'),
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }),
]);

export const messageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.string(), timestamp: finite }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.array(blockSchema),
    provider: z.string(),
    model: z.string(),
    api: z.string(),
    usage: usageSchema,
    stopReason: z.enum(['stop', 'length', 'toolUse', 'error', 'aborted']),
    errorMessage: z.string().optional(),
    timestamp: finite,
  }),
  z.looseObject({
    role: z.literal('toolResult'),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.string(),
    isError: z.boolean(),
    timestamp: finite,
  }),
]);

export const TRANSCRIPT_VERSION = 1;

export const headerSchema = z.looseObject({
  type: z.literal('session'),
  version: z.number().int().positive(),
  id: z.string().min(1),
  createdAt: finite,
  /** Added so a lost index can be rebuilt with the user's session keys; optional (v1 readers ignore it). */
  key: z.string().optional(),
});

export type TranscriptHeader = z.infer<typeof headerSchema>;
