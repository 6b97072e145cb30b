/**
 * X1 import: the servers of a `claude_desktop_config.json` (`{"mcpServers": …}`), Cursor's or Cline's `mcp.json`
 * (same key), VS Code's `mcp.json` (`{"servers": …}`), or a bare `{name: entry}` map — as entries our schema accepts.
 * Fields of other apps that mean the same thing are translated (Cline `autoApprove` → `alwaysAllow`, `timeout` in
 * seconds → `timeoutMs`, `transportType` → `type`); fields with no meaning here are dropped and named; an entry
 * that still does not fit is skipped with the reason. Pure.
 */
import { MCP_SERVER_NAME, mcpServerConfigSchema, mcpServerProblem, type McpServerInput } from './config.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ImportResult {
  servers: Record<string, McpServerInput>;
  /** One line per server not imported, and per field dropped. */
  notes: string[];
}

const KNOWN = new Set(Object.keys(mcpServerConfigSchema.shape));

function translate(entry: Json, notes: string[], name: string): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(entry)) {
    if (k === 'autoApprove' && Array.isArray(v)) out.alwaysAllow = v;
    else if (k === 'timeout' && typeof v === 'number') out.timeoutMs = Math.round(v * 1000);
    else if (k === 'transportType' && typeof v === 'string') out.type = v;
    else if (k === 'type' && v === 'streamable_http') out.type = 'http';
    else if (KNOWN.has(k)) out[k] = v;
    else notes.push(`${name}: field "${k}" is not used here and was left out`);
  }
  return out;
}

export function importServers(text: string): ImportResult {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new Error(`not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(json)) throw new Error('expected a JSON object with "mcpServers"');
  const map = isObject(json.mcpServers) ? json.mcpServers : isObject(json.servers) ? json.servers : json;
  const servers: Record<string, McpServerInput> = {};
  const notes: string[] = [];
  for (const [name, entry] of Object.entries(map)) {
    if (!isObject(entry)) {
      notes.push(`${name}: not a server entry (skipped)`);
      continue;
    }
    if (!MCP_SERVER_NAME.test(name)) {
      notes.push(`${name}: server names may use only letters, digits, ".", "_" and "-" (skipped)`);
      continue;
    }
    const parsed = mcpServerConfigSchema.safeParse(translate(entry, notes, name));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      notes.push(`${name}: ${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'} (skipped)`);
      continue;
    }
    const problem = mcpServerProblem(name, parsed.data);
    if (problem) {
      notes.push(`${name}: ${problem} (skipped)`);
      continue;
    }
    servers[name] = translate(entry, [], name) as McpServerInput;
  }
  if (Object.keys(servers).length === 0 && notes.length === 0) throw new Error('no MCP servers in it (expected "mcpServers": { NAME: { "command" … } })');
  return { servers, notes };
}
