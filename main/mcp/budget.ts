/**
 * X1 tool budget: what the tool definitions cost in tokens, per server. Over a share of the context window (10 %)
 * the person is warned (CLI stderr, the server rows in Settings) and can switch tools off; a tool list that would not
 * leave room for the conversation is never sent — servers are left out, the largest first, until it fits.
 */
import { estimateTokens } from '../engine/attempt/tokens.js';
import type { ToolSpec } from '../providers/types.js';

export const WARN_SHARE = 0.1;
/** The tools may take at most this share of the window; the rest is the conversation and the reply. */
export const MAX_SHARE = 0.5;

export const toolTokens = (specs: readonly ToolSpec[]): number => (specs.length === 0 ? 0 : estimateTokens(JSON.stringify(specs)));

export interface BudgetPlan {
  /** Servers whose tools are sent. */
  kept: string[];
  /** Servers left out because the tools would not fit, with their token counts. */
  dropped: { server: string; tokens: number }[];
  /** Tokens of the MCP tools sent. */
  mcpTokens: number;
  /** A warning line when the MCP tools take more than WARN_SHARE of the window. */
  warning?: string;
}

/** Pure: which servers' tools fit, given each server's token count, the built-in tools' and the window. */
export function planToolBudget(perServer: ReadonlyMap<string, number>, builtInTokens: number, windowTokens: number): BudgetPlan {
  const limit = Math.floor(windowTokens * MAX_SHARE) - builtInTokens;
  const servers = [...perServer.entries()].sort((a, b) => b[1] - a[1]);
  let total = servers.reduce((s, [, t]) => s + t, 0);
  const dropped: BudgetPlan['dropped'] = [];
  while (total > limit && servers.length > 0) {
    const [server, tokens] = servers.shift()!;
    dropped.push({ server, tokens });
    total -= tokens;
  }
  const kept = [...perServer.keys()].filter((s) => !dropped.some((d) => d.server === s));
  const pct = (n: number) => `${Math.round((n / windowTokens) * 100)} %`;
  const parts: string[] = [];
  if (total > windowTokens * WARN_SHARE) {
    parts.push(`MCP tool definitions take about ${total} tokens, ${pct(total)} of the ${windowTokens}-token context window; switch off tools you do not need (agentdesk mcp, or Settings › MCP)`);
  }
  if (dropped.length > 0) {
    parts.push(`left out the tools of ${dropped.map((d) => `"${d.server}" (${d.tokens} tokens)`).join(', ')}: they would not leave room for the conversation`);
  }
  return { kept, dropped, mcpTokens: total, ...(parts.length > 0 ? { warning: parts.join('; ') } : {}) };
}
