/**
 * Hook points used by the engine (E19, first cut: the tool hooks of E12). A failing hook is logged, never fatal.
 */
export interface BeforeToolCallResult {
  /** Replace the call's arguments. */
  params?: Record<string, unknown>;
  /** Refuse the call; the model receives `reason` as an error result. */
  block?: boolean;
  reason?: string;
}

export interface ToolCallInfo {
  runId: string;
  sessionKey: string;
  toolCallId: string;
  toolName: string;
  params: Record<string, unknown>;
}

export interface EngineHooks {
  before_tool_call?: (info: ToolCallInfo) => Promise<BeforeToolCallResult | void> | BeforeToolCallResult | void;
  /** Fire-and-forget: never awaited by the run. */
  after_tool_call?: (
    info: ToolCallInfo & { result: string; isError: boolean; durationMs: number },
  ) => Promise<void> | void;
}

export function logHookFailure(hook: string, err: unknown): void {
  console.error(`[agentdesk] hook ${hook} failed: ${(err as Error)?.message ?? String(err)}`);
}
