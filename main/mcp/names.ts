/**
 * X1: the names MCP tools are offered under — `mcp__<server>__<tool>` (Claude Code's convention), sanitised to what
 * both providers accept (`^[a-zA-Z0-9_-]{1,64}$`: Anthropic's rule, and OpenAI's function-name rule), shortened to
 * 64 characters with a short hash when too long, and disambiguated when two tools end up with the same name.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
const PREFIX = 'mcp__';

const clean = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_');
const shortHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 6);

/** The name of one tool, before collisions are looked at. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${PREFIX}${clean(server)}__${clean(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  // Too long: keep the start (the server and the tool's beginning) and a hash of the whole, so it stays unique.
  const hash = shortHash(`${server}\u0000${tool}`);
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/**
 * Names for every (server, tool) pair, in order, none equal to another or to a `reserved` name (the built-in
 * tools): a collision gets `_2`, `_3`… (the end shortened to stay within 64).
 */
export function assignToolNames(pairs: readonly { server: string; tool: string }[], reserved: readonly string[] = []): string[] {
  const taken = new Set(reserved.map((n) => n.toLowerCase()));
  return pairs.map(({ server, tool }) => {
    const base = mcpToolName(server, tool);
    let name = base;
    for (let i = 2; taken.has(name.toLowerCase()); i++) {
      const suffix = `_${i}`;
      name = `${base.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    }
    taken.add(name.toLowerCase());
    return name;
  });
}

export const isMcpToolName = (name: string): boolean => name.startsWith(PREFIX);
