/** X1: what the MCP modules share (the gateway's status DTO is in preload/contract/mcp.ts). */
import type { ToolAnnotations } from '../tools/types.js';

export type McpServerState = 'idle' | 'starting' | 'connected' | 'failed';

/** One tool as the server lists it (kept in the tool cache, so a run can offer it before the server starts). */
export interface McpToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
}
