/** D2 contract: X1 — MCP servers as Settings shows and edits them (`mcp.*` methods). Secrets only go in, never out. */

export type McpStateDto = 'idle' | 'starting' | 'connected' | 'failed' | 'disabled';
export type McpApprovalDto = 'ask' | 'auto' | 'deny';

export interface McpToolDto {
  name: string;
  title?: string;
  description: string;
  /** Offered to the model (the per-tool switch). */
  enabled: boolean;
  /** Runs without asking (the server's `alwaysAllow`). */
  alwaysAllow: boolean;
  /** The server's own claims about the tool. */
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface McpServerDto {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  /** Where it is defined: Settings (editable, removable) or config.json (an edit saves a copy to Settings). */
  source: 'settings' | 'config';
  enabled: boolean;
  state: McpStateDto;
  /** The failure, with the last line of its stderr. */
  error?: string;
  /** The last lines the server wrote to stderr. */
  stderr: string[];
  /** The tools, when known (connected, or listed before); undefined until the server was started once. */
  tools?: McpToolDto[];
  /** Tokens the enabled tools' definitions take on every request (estimate). */
  toolTokens: number;
  approval: McpApprovalDto;
  timeoutMs: number;
  command?: string;
  args: string[];
  cwd?: string;
  url?: string;
  /** Configured env / headers: names with their values (not secrets; those are only named). */
  env: Record<string, string>;
  headers: Record<string, string>;
  secretEnv: string[];
  secretHeaders: string[];
  /** An OAuth consent is needed: open this URL. */
  authUrl?: string;
}

export interface McpStatusDto {
  servers: McpServerDto[];
  /** MCP tool definitions above 10 % of the default model's context window: how much, and what to do. */
  budgetWarning?: string;
}

/** A server as the Settings form saves it (secret values are written to the keychain, never returned). */
export interface McpServerInputDto {
  type?: 'stdio' | 'http' | 'sse';
  command?: string;
  args?: string[];
  cwd?: string;
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
  /** New secret values by name; an existing secret keeps its value when not given again. */
  secretEnv?: Record<string, string>;
  secretHeaders?: Record<string, string>;
  approval?: McpApprovalDto;
  timeoutMs?: number;
}
