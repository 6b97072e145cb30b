/** A workspace tool. Tools throw ToolError (or any Error) on failure; the lifecycle wrapper (E12) records it. */
import type { ImageData } from '../engine/messages.js';
import type { ToolSpec } from '../providers/types.js';

export interface ToolContext {
  /** Real path of the workspace root (symlinks resolved). */
  workspace: string;
  signal: AbortSignal;
  /**
   * T4: characters a result may keep — a share of the context window of the run this call serves. Tools size their
   * output caps by it; the engine cuts anything longer anyway.
   */
  resultMaxChars?: number;
  /** Streams partial output (e.g. exec stdout) to the UI as `tool` update events. */
  onUpdate?: (partial: string) => void;
  /** The run calling the tool (spawn_subagent links its child to it). */
  run?: { runId: string; sessionKey: string };
}

export interface ToolOutput {
  /** Text sent back to the model. */
  content: string;
  /** Structured details for the UI (not sent to the model). */
  details?: Record<string, unknown>;
  /** Images for the model (vision models get them with the result; `content` names them). */
  images?: ImageData[];
}

/** What an MCP server says about one of its tools (hints: the server's own claim, not checked). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool extends ToolSpec {
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * X2: may this tool change the workspace? The first call of a turn to a mutating tool checkpoints the workspace
   * first. Unset = mutating (the safe default: an MCP tool not marked read-only, a plugin's tool); read-only tools
   * say `false`.
   */
  mutating?: boolean;
  /**
   * X2: the one workspace path (the call's own argument, unresolved) this call creates or replaces and nothing else —
   * its checkpoint may then save that path first and let the call run before the folder's capture is ready
   * (main/checkpoints/gate.ts). Unset: the call waits for the capture.
   */
  changesOnly?: (args: Record<string, unknown>) => unknown;
  /** A tool from an MCP server (X1): the server, the tool's own name there, its annotations (`mutating` is false only
   * when the server says `readOnlyHint`). */
  mcp?: { server: string; tool: string; annotations?: ToolAnnotations };
}

/** X2: whether a call to `tool` is preceded by a checkpoint of the workspace (unset counts as mutating). */
export const isMutating = (tool: Pick<Tool, 'mutating'>): boolean => tool.mutating !== false;

/** A failure whose message is meant for the model and the user as-is. */
export class ToolError extends Error {
  override name = 'ToolError';
}
