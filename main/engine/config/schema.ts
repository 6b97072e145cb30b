/**
 * config.json (SPEC "The headless command line"): every key optional, unknown keys rejected (strict) so typos
 * surface as errors instead of silently doing nothing. Cross-field rules live in load.ts.
 */
import { z } from 'zod';
import { lazy } from '../lazy.js';
import { mcpServersSchema } from '../../mcp/config.js';

export const API_KINDS = ['anthropic', 'openai-chat', 'openai-responses'] as const;
export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high'] as const;
export const QUEUE_MODES = ['followup', 'collect', 'steer', 'interrupt'] as const;

const positiveInt = lazy(() => z.number().int().positive());
const positiveNumber = lazy(() => z.number().positive());
const nonEmpty = lazy(() => z.string().min(1));

const price = lazy(() => z.number().nonnegative());

export const modelConfigSchema = lazy(() => z.strictObject({
  id: nonEmpty,
  contextWindow: positiveInt.optional(),
  maxTokens: positiveInt.optional(),
  reasoning: z.boolean().optional(),
  /** E17/X4: USD per million tokens; cache prices default to the input price. */
  cost: z.strictObject({ input: price, output: price, cacheRead: price.optional(), cacheWrite: price.optional() }).optional(),
  /** X3: what the model takes (OpenClaw's shape): ["text"] or ["text", "image"]. */
  input: z.array(z.enum(['text', 'image'])).min(1).optional(),
}));

/** `api` and `baseUrl` may be left out only for a built-in provider (load.ts enforces it for the others). */
export const providerConfigSchema = lazy(() => z.strictObject({
  api: z.enum(API_KINDS).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  apiKeyEnv: nonEmpty.optional(),
  /** Idle watchdog: a stream silent this long ends with a timeout error. */
  timeoutSeconds: positiveNumber.optional(),
  models: z.array(modelConfigSchema).default([]),
}));

export const authProfileConfigSchema = lazy(() => z.strictObject({
  id: nonEmpty,
  provider: nonEmpty,
  apiKeyEnv: nonEmpty.optional(),
  /** E6: always use this profile for its provider; it never rotates (cooldowns still apply). */
  locked: z.boolean().optional(),
  /** E6: try this profile first (before the last good one). */
  preferred: z.boolean().optional(),
}));

export const APPROVAL_MODES = ['ask', 'auto', 'deny'] as const;

/** T3: which tool calls run without asking. Read-only tools never ask; exec, write, edit, apply_patch follow `mode`. */
export const approvalsConfigSchema = lazy(() => z.strictObject({
  /** How calls that need approval are answered: ask the person, allow (auto) or refuse (deny). */
  mode: z.enum(APPROVAL_MODES).default('ask'),
  /** Per-tool override of `mode`, e.g. { "write": "auto" }. */
  tools: z.record(z.string(), z.enum(APPROVAL_MODES)).default({}),
  /** Tools that always run without asking / never run. */
  allowTools: z.array(nonEmpty).default([]),
  denyTools: z.array(nonEmpty).default([]),
  /** exec command prefixes that run without asking (sandboxed only) / are always refused. */
  allowCommands: z.array(nonEmpty).default([]),
  denyCommands: z.array(nonEmpty).default([]),
  /** How long a request waits for the person; unanswered, the call is refused and the model is told why. */
  timeoutSeconds: positiveNumber.default(300),
  /** X5: "auto" (CLI --approve auto) may also run exec where there is no OS sandbox (default: it refuses). */
  allowUnsandboxed: z.boolean().default(false),
}));

/** X4: budgets in USD (a run stops before a model call once one is reached). */
export const budgetSchema = lazy(() => z.strictObject({
  perChatUsd: positiveNumber.optional(),
  perDayUsd: positiveNumber.optional(),
  perMonthUsd: positiveNumber.optional(),
}));

export const agentConfigSchema = lazy(() => z.strictObject({
  model: z
    .strictObject({
      primary: nonEmpty.optional(),
      fallbacks: z.array(nonEmpty).default([]),
    })
    .prefault({}),
  timeoutSeconds: positiveNumber.default(600),
  contextTokens: positiveInt.optional(),
  /** E22: send only the last N turns of a session's history (a session's own historyTurns wins). */
  historyTurns: positiveInt.optional(),
  maxConcurrent: positiveInt.default(4),
  thinking: z.enum(THINKING_LEVELS).default('off'),
  queueMode: z.enum(QUEUE_MODES).default('followup'),
  sandbox: z.boolean().default(true),
  /** E16/E21: reasoning is also delivered in the run's payloads. */
  verbose: z.boolean().default(false),
  /** Network access for sandboxed commands (exec). */
  network: z.boolean().default(true),
  approvals: approvalsConfigSchema.prefault({}),
  /** X5: limits for each sandboxed command (defaults: 512 processes, a quarter of the RAM per process, ≤ 3 GiB). */
  limits: z.strictObject({ processes: positiveInt.optional(), memoryMiB: positiveInt.optional() }).prefault({}),
  workspace: nonEmpty.optional(),
  /** X4: spending limits in USD, checked before each model call (main/usage/budget.ts). */
  budget: budgetSchema.optional(),
}));

/** E19: plugins in `<home>/plugins/<name>/` stay off until their folder name is listed here. */
export const pluginsConfigSchema = lazy(() => z.strictObject({
  enabled: z.array(nonEmpty).default([]),
}));

/** X2: checkpoints of the workspace before each turn's first change, and how long they are kept. */
export const checkpointsConfigSchema = lazy(() => z.strictObject({
  enabled: z.boolean().default(true),
  /** Turn checkpoints kept per session. */
  keep: positiveInt.default(100),
  /** Checkpoints older than this many days are removed. */
  maxAgeDays: positiveNumber.default(30),
  /** Files larger than this are not captured (listed as skipped). */
  maxFileMB: positiveNumber.default(10),
  /** Once captured files add up to this, the rest are listed as skipped. */
  maxTotalMB: positiveNumber.default(1024),
  /** Once a checkpoint holds this many files, folders and links, the walk stops (the folders it did not finish listed as skipped). */
  maxEntries: positiveInt.default(200_000),
}));

export const configSchema = lazy(() => z.strictObject({
  providers: z.record(z.string(), providerConfigSchema).default({}),
  authProfiles: z.array(authProfileConfigSchema).default([]),
  agent: agentConfigSchema.prefault({}),
  plugins: pluginsConfigSchema.prefault({}),
  checkpoints: checkpointsConfigSchema.prefault({}),
  /** X1: MCP servers, in the shape of Claude Desktop's / Cursor's config (main/mcp/config.ts). */
  mcpServers: mcpServersSchema,
}));

/** The config with defaults applied. */
export type AppConfig = z.output<typeof configSchema>;
/** What config.json may contain. */
export type AppConfigInput = z.input<typeof configSchema>;
export type ProviderConfig = AppConfig['providers'][string];
export type ModelConfig = ProviderConfig['models'][number];
export type AuthProfileConfig = AppConfig['authProfiles'][number];
export type QueueMode = (typeof QUEUE_MODES)[number];
export type ApprovalsConfig = AppConfig['agent']['approvals'];
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The defaults (what a missing config.json means). */
export const defaultConfig = (): AppConfig => configSchema.parse({});
