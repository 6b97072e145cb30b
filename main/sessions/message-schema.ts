/**
 * Shape checks for transcript lines. Only the fields the engine relies on are checked; unknown extra fields are
 * allowed (a newer app may add some) and are kept, because the loader returns the parsed line, not zod's output.
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';

const finite = lazy(() => z.number().refine(Number.isFinite));

const usageSchema = lazy(() => z.looseObject({
  input: finite,
  output: finite,
  cacheRead: finite,
  cacheWrite: finite,
  total: finite,
}));

const blockSchema = lazy(() => z.discriminatedUnion('type', [
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
]));

/** X3: one image shape everywhere — bytes inline (`data`) or stored once and named (`sha256`). */
const sha256 = lazy(() => z.string().regex(/^[0-9a-f]{64}$/));
const imageSchema = lazy(() => z
  .looseObject({ type: z.literal('image'), mimeType: z.string(), data: z.string().optional(), sha256: sha256.optional() })
  .refine((i) => i.data !== undefined || i.sha256 !== undefined, 'an image needs data or sha256'));
const fileSchema = lazy(() => z.looseObject({ type: z.literal('file'), name: z.string(), mimeType: z.string(), sha256, bytes: finite }));

export const messageSchema = lazy(() => z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.string(), timestamp: finite, attachments: z.array(z.union([imageSchema, fileSchema])).optional() }),
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
    images: z.array(imageSchema).optional(),
    durationMs: finite.optional(),
  }),
]));

export const TRANSCRIPT_VERSION = 1;

/**
 * A compaction record (E10): the summary that replaces the older turns in the context. It is appended like any
 * line, so the transcript is never rewritten; the header version stays 1 and a loader that predates the record
 * counts it as an unknown line and still reads every message. The record has its own `version`: a loader that
 * meets a newer record version ignores that record (keeps the full history) instead of failing.
 *
 * `keptMessages`: how many of the messages right before this record stay verbatim after the summary.
 */
export const COMPACTION_RECORD_VERSION = 1;

export const compactionRecordSchema = lazy(() => z.looseObject({
  type: z.literal('compaction'),
  version: z.number().int().positive(),
  summary: z.string().min(1),
  keptMessages: z.number().int().nonnegative(),
  tokensBefore: finite,
  tokensAfter: finite,
  /** 'preemptive' | 'overflow' | 'manual' today; any text is accepted from a newer writer. */
  reason: z.string(),
  timestamp: finite,
}));

export type CompactionRecord = z.infer<typeof compactionRecordSchema>;

/** The fields a writer supplies (type and version are added on write). */
export interface CompactionFields {
  summary: string;
  keptMessages: number;
  tokensBefore: number;
  tokensAfter: number;
  reason: string;
  timestamp: number;
}

/**
 * Tool results shortened after the fact (E10: the `truncate_tool_results_only` route and the overflow path's last
 * step): the new text of each result, by tool call id. Like a compaction record it is appended, never an edit —
 * the full result stays in the file (and in the chat's history); the context the model gets uses the new text.
 */
export const TOOL_RESULTS_RECORD_VERSION = 1;

export const toolResultsRecordSchema = lazy(() => z.looseObject({
  type: z.literal('tool_results'),
  version: z.number().int().positive(),
  results: z.array(z.looseObject({ toolCallId: z.string().min(1), content: z.string() })).min(1),
  /** 'truncate' (the preemptive route) | 'overflow' (the overflow path's last step); any text from a newer writer. */
  reason: z.string(),
  timestamp: finite,
}));

export type ToolResultsRecord = z.infer<typeof toolResultsRecordSchema>;

export interface ToolResultsFields {
  results: { toolCallId: string; content: string }[];
  reason: string;
  timestamp: number;
}

export const headerSchema = lazy(() => z.looseObject({
  type: z.literal('session'),
  version: z.number().int().positive(),
  id: z.string().min(1),
  createdAt: finite,
  /** Added so a lost index can be rebuilt with the user's session keys; optional (v1 readers ignore it). */
  key: z.string().optional(),
}));

export type TranscriptHeader = z.infer<typeof headerSchema>;
