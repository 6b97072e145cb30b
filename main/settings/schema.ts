/**
 * D5: the app's settings — `<home>/settings.json`, written by the app (electron-store in main/shell, conf under
 * plain Node: same file, same schema, same migrations) and read by the CLI and `npm run web`.
 *
 * Everything is optional: an unset value means "not chosen in Settings", so config.json (headless use) and the
 * built-in defaults still apply (precedence: command-line flags › settings › config.json › built-in defaults).
 * No secret is ever stored here: key profiles hold only their id, provider and label; keys live in the keychain.
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import { API_KINDS, QUEUE_MODES, THINKING_LEVELS, budgetSchema } from '../engine/config/schema.js';
import { mcpServerConfigSchema } from '../mcp/config.js';

export const APPROVAL_MODES = ['ask', 'auto', 'deny'] as const;
export const MAX_RECENT_FOLDERS = 8;

export const endpointModelSchema = lazy(() => z.strictObject({
  id: z.string().min(1),
  contextWindow: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  reasoning: z.boolean().optional(),
}));

/** An OpenAI-compatible (or Anthropic-compatible) endpoint: Ollama, LM Studio, vLLM, OpenRouter… */
export const endpointSchema = lazy(() => z.strictObject({
  api: z.enum(API_KINDS),
  baseUrl: z.url({ protocol: /^https?$/ }),
  models: z.array(endpointModelSchema).default([]),
}));

export const profileSchema = lazy(() => z.strictObject({
  /** "provider:label" — also the keychain account of its key. */
  id: z.string().min(3),
  provider: z.string().min(1),
  label: z.string().regex(/^[\w.-]+$/),
  addedAt: z.number(),
  /** Where the key lives: the OS keychain, or (only when the person chose it) the app's encrypted fallback. */
  storage: z.enum(['keychain', 'encrypted']).default('keychain'),
}));

export const defaultsSchema = lazy(() => z.strictObject({
  // tryParseModelRef's rule as a pattern: conf checks settings.json with the JSON Schema made from this one.
  model: z.string().regex(/^[^/\s]+\/\S+$/).optional(),
  thinking: z.enum(THINKING_LEVELS).optional(),
  queueMode: z.enum(QUEUE_MODES).optional(),
  approval: z.enum(APPROVAL_MODES).optional(),
  sandbox: z.boolean().optional(),
  timeoutSeconds: z.number().positive().max(7 * 24 * 3600).optional(),
  /** E16/E21: verbose replies (reasoning, tool summaries). */
  verbose: z.boolean().optional(),
}));

export const settingsSchema = lazy(() => z.object({
  workspace: z.string().min(1).optional(),
  recentWorkspaces: z.array(z.string().min(1)).max(MAX_RECENT_FOLDERS).default([]),
  defaults: defaultsSchema.prefault({}),
  /** Extra providers by name (the built-in anthropic and openai need none). */
  providers: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/), endpointSchema).default({}),
  /** Key profiles in the order the outer loop tries them (per provider). */
  profiles: z.array(profileSchema).default([]),
  /** The first-run onboarding was closed. */
  onboarded: z.boolean().default(false),
  /** The person chose the app's encrypted fallback because no keychain is reachable (Electron only). */
  allowEncryptedFallback: z.boolean().default(false),
  /** X1: MCP servers added or edited in Settings (an entry replaces a config.json server of the same name); secrets in the keychain. */
  mcpServers: z.record(z.string(), mcpServerConfigSchema).default({}),
  /** X4: budgets set in Settings › Usage (replace config.json's agent.budget when present). */
  budget: budgetSchema.optional(),
}));

export type Settings = z.output<typeof settingsSchema>;
export type SettingsInput = z.input<typeof settingsSchema>;
export type SettingsDefaults = Settings['defaults'];
export type EndpointSettings = Settings['providers'][string];
export type ProfileSettings = Settings['profiles'][number];

/** The JSON Schema handed to conf / electron-store (they validate every write with ajv). */
export function settingsJsonSchema(): Record<string, object> {
  const json = z.toJSONSchema(settingsSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, object> };
  return json.properties;
}
