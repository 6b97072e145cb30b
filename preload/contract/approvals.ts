/** D2 contract: T3 approvals — the `approval` stream and `approvals.respond`. */

export type ApprovalMode = 'ask' | 'auto' | 'deny';

/** T3: a tool call waits for the person's decision. */
export type ApprovalDecision = 'allow_once' | 'allow_session' | 'deny';

/** X1: an MCP tool as the approval card shows it; the hints are the server's own claim, not checked. */
export interface McpApprovalInfo {
  server: string;
  tool: string;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export type ApprovalData =
  | {
      phase: 'request';
      approvalId: string;
      /** When an unanswered request is refused (epoch ms); the model is told nobody answered. */
      expiresAt?: number;
      toolCallId: string;
      tool: string;
      args: Record<string, unknown>;
      cwd: string;
      /** Unified diff for write / edit / apply_patch. */
      diff?: string;
      /** False where exec runs without an OS sandbox. */
      sandboxed: boolean;
      /** X1: the call is an MCP tool's — the server, its own tool name and what it claims about it. */
      mcp?: McpApprovalInfo;
      /**
       * X5: protected paths this call would change, each with why it is dangerous (git hooks and config, shell
       * files, editor tasks, AGENTS.md…). Such a call is asked about even in "auto", and an answer covers this
       * call only: "allow for this session" is not remembered for it.
       */
      risks?: { path: string; why: string }[];
    }
  | { phase: 'resolved'; approvalId: string; toolCallId: string; decision: ApprovalDecision; reason?: string };

export interface ApprovalRespondParams {
  approvalId: string;
  decision: ApprovalDecision;
  /** Shown to the model with a denial. */
  reason?: string;
  /**
   * The client refused without asking anyone (a CLI run with no terminal, `--approve deny`): the model and the
   * person are told nobody was asked, not that the person denied it.
   */
  unasked?: boolean;
}
