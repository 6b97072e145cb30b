/**
 * X1 "keys stay out": the environment a stdio MCP server starts with — the same rules as `exec` (main/tools/env.ts:
 * no provider keys or key-like names, no keychain or agent sockets, nothing whose value equals a configured key),
 * then only what the person configured for that server: its `env` (with `${env:NAME}` taken from AgentDesk's own
 * environment) and its keychain-held `secretEnv` values. Headers of a remote server are built the same way.
 */
import { scrubEnv, type ScrubOptions } from '../tools/env.js';
import { expandEnvRefs, referencedEnvNames, type McpServerConfig } from './config.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Variables referenced with `${…}` (by this or any server: `scrub.names` carries the others') reach a server only
 * through the value they were mapped to, never under their own name.
 */
export function stdioServerEnv(
  cfg: Pick<McpServerConfig, 'env' | 'headers' | 'args'>,
  base: Env,
  scrub: ScrubOptions,
  secrets: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(cfg.env)) own[name] = expandEnvRefs(value, base);
  const withheld = [...(scrub.names ?? []), ...referencedEnvNames(cfg)];
  return { ...scrubEnv(base as NodeJS.ProcessEnv, { ...scrub, names: withheld }), ...own, ...secrets };
}

export function remoteHeaders(cfg: Pick<McpServerConfig, 'headers'>, base: Env, secrets: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(cfg.headers)) out[name] = expandEnvRefs(value, base);
  return { ...out, ...secrets };
}

/** The stdio server's argv with `${env:NAME}` expanded. */
export const expandedArgs = (args: readonly string[], base: Env): string[] => args.map((a) => expandEnvRefs(a, base));
