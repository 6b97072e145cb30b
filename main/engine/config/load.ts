/**
 * Loads `<home>/config.json`. A missing (or blank) file means the defaults. Every problem becomes a ConfigError
 * with ONE line naming the file and the problem (the CLI prints it and exits 2), e.g.
 *   config.json: agent.maxConcurrent: expected a number, got "four"
 *   config.json is not valid JSON: Unexpected token '}' (line 3, column 5)
 *   config.json: authProfiles[0].provider "nope" is not a configured provider
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUILT_IN_PROVIDERS, RESERVED_PROVIDERS, tryParseModelRef } from '../models.js';
import { formatIssues, formatPath, formatValue } from './format-issue.js';
import { findJsonSyntaxError } from './json-error.js';
import { API_KINDS, configSchema, defaultConfig, type AppConfig } from './schema.js';
import { mcpServerProblem } from '../../mcp/config.js';

export const CONFIG_FILE = 'config.json';

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    /** Full path of the file at fault. */
    readonly file: string,
  ) {
    super(message);
  }
}

const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export async function loadConfig(home: string): Promise<AppConfig> {
  const file = join(home, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return defaultConfig();
    throw new ConfigError(`${CONFIG_FILE} could not be read: ${e.message.split('\n')[0]}`, file);
  }
  return parseConfig(text, file);
}

/** Parses config text (pure apart from the file name used in errors). */
export function parseConfig(text: string, file: string = CONFIG_FILE): AppConfig {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return defaultConfig();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    const problem = findJsonSyntaxError(body);
    const detail = problem
      ? `${problem.message} (line ${problem.line}, column ${problem.column})`
      : (err as Error).message.split('\n')[0];
    throw new ConfigError(`${CONFIG_FILE} is not valid JSON: ${detail}`, file);
  }
  return validateConfig(json, file);
}

/** Schema + cross-field checks on already-parsed JSON. */
export function validateConfig(json: unknown, file: string = CONFIG_FILE): AppConfig {
  const result = configSchema.safeParse(json, { reportInput: true });
  if (!result.success) throw new ConfigError(`${CONFIG_FILE}: ${formatIssues(result.error.issues, configSchema)}`, file);
  const problem = crossFieldProblem(result.data);
  if (problem) throw new ConfigError(`${CONFIG_FILE}: ${problem}`, file);
  return result.data;
}

function crossFieldProblem(config: AppConfig): string | undefined {
  const builtIns = Object.keys(BUILT_IN_PROVIDERS);
  for (const [name, p] of Object.entries(config.providers)) {
    const at = formatPath(['providers', name]);
    if (!PROVIDER_NAME.test(name)) {
      return `${at}: provider names may use only letters, digits, ".", "_" and "-"`;
    }
    if (RESERVED_PROVIDERS.has(name)) return `${at}: "${name}" is the built-in offline model and cannot be configured`;
    if (!builtIns.includes(name)) {
      if (!p.api) return `${at}.api: missing (expected one of ${API_KINDS.map((k) => JSON.stringify(k)).join(', ')})`;
      if (!p.baseUrl) return `${at}.baseUrl: missing (expected an http:// or https:// URL)`;
    }
    const seen = new Set<string>();
    for (const [i, m] of p.models.entries()) {
      if (seen.has(m.id)) return `${at}.models[${i}].id: duplicate model "${m.id}"`;
      seen.add(m.id);
    }
  }

  // Profiles may only name providers that take keys: the built-in `anthropic` and `openai`, or configured ones.
  const keyed = new Set([...builtIns.filter((n) => !RESERVED_PROVIDERS.has(n)), ...Object.keys(config.providers)]);
  const ids = new Set<string>();
  for (const [i, profile] of config.authProfiles.entries()) {
    if (!keyed.has(profile.provider)) {
      return `authProfiles[${i}].provider ${formatValue(profile.provider)} is not a configured provider`;
    }
    const prefix = `${profile.provider}:`;
    if (!profile.id.startsWith(prefix) || profile.id.length === prefix.length) {
      return `authProfiles[${i}].id: expected "${prefix}LABEL", got ${formatValue(profile.id)}`;
    }
    if (ids.has(profile.id)) return `authProfiles[${i}].id: duplicate profile "${profile.id}"`;
    ids.add(profile.id);
    const other = config.authProfiles.findIndex((p) => p !== profile && p.provider === profile.provider && p.locked);
    if (profile.locked && other >= 0 && other < i) {
      return `authProfiles[${i}].locked: "${config.authProfiles[other]!.id}" is already the locked profile of ${profile.provider}`;
    }
  }

  for (const [name, server] of Object.entries(config.mcpServers)) {
    const problem = mcpServerProblem(name, server);
    if (problem) return `${formatPath(['mcpServers', name])}: ${problem}`;
  }

  const known = [...builtIns, ...Object.keys(config.providers).filter((n) => !builtIns.includes(n))];
  const refs: [string, string][] = [];
  if (config.agent.model.primary !== undefined) refs.push(['agent.model.primary', config.agent.model.primary]);
  config.agent.model.fallbacks.forEach((r, i) => refs.push([`agent.model.fallbacks[${i}]`, r]));
  for (const [at, ref] of refs) {
    const parsed = tryParseModelRef(ref);
    if (!parsed) return `${at}: expected "provider/model", got ${formatValue(ref)}`;
    if (!known.includes(parsed.provider)) {
      return `${at}: unknown provider "${parsed.provider}" in "${ref}" (known: ${known.join(', ')})`;
    }
  }
  return undefined;
}
