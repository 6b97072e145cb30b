/**
 * The approval gate behind the engine's approval step (T3): asks the policy, remembers "allow for this session"
 * per session and tool, emits the `approval` request with a preview (the command, or the diff an edit would
 * make), and waits for `approvals.respond` — or for the run to be stopped or time out, which refuses the call.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, McpApprovalInfo } from '../../../preload/contract.js';
import type { ApprovalGate, ApprovalOutcome, ApprovalRequestInfo } from '../../engine/attempt/approvals.js';
import type { ApprovalMode, ApprovalsConfig } from '../../engine/config/schema.js';
import { previewPatch } from '../apply-patch.js';
import { diffOf, previewEdit } from '../edit.js';
import { readWholeText } from '../fs/confined.js';
import { allowListed, decidePolicy } from './policy.js';
import { resolveProgram, shellWords } from './command-words.js';
import { plantedScriptReason, scriptRun } from './planted-script.js';
import type { ProtectedGrants } from '../protected/grants.js';
import { protectedTargets, type ProtectedTarget } from '../protected/targets.js';
import { deniedByPersonText, refusedByPolicyText, refusedUnaskedText, STOPPED_WHILE_WAITING, unansweredText } from '../../../preload/messages/approvals.js';

export interface ApprovalBrokerOptions {
  config: ApprovalsConfig;
  /** The CLI's --approve. */
  modeOverride?: ApprovalMode;
  /** Whether exec runs in an OS sandbox. */
  sandboxed: () => Promise<boolean>;
  /** X1: an MCP tool's own approval mode and what the card shows of it (undefined: a built-in tool). */
  toolInfo?: (tool: string) => { mode: ApprovalMode; mcp: McpApprovalInfo } | undefined;
  /**
   * How long a request waits for an answer (ms; read per request, so a settings change applies to the next one).
   * Unanswered, the call is refused with a reason the model sees. Default 5 min.
   */
  timeoutMs?: () => number;
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (handle: unknown) => void };
  now?: () => number;
  /** Where an explicit approval of a protected path is recorded for the tool that writes it (X5). */
  grants?: ProtectedGrants;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

/** "5 min", "90 s": how long a request waited, for the model and the card. */
export function waitedFor(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  return `${Math.round(s / 60)} min`;
}

/** Tools whose targets are checked against the protected paths (exec gets them read-only in its sandbox). */
const FILE_WRITERS = new Set(['write', 'edit', 'apply_patch']);

interface Pending {
  runId: string;
  sessionKey: string;
  toolName: string;
  settle: (decision: ApprovalDecision, reason?: string, unasked?: boolean) => void;
}

const PREVIEW_LIMIT_BYTES = 2 * 1024 * 1024;
/** Session keys of subagent runs (main/engine/run/subagents.ts). */
const SUBAGENT_SESSION_PREFIX = 'subagent/';

/** The diff an edit-like call would make, or a note why it cannot be shown. */
export async function previewDiff(workspace: string, tool: string, params: Record<string, unknown>): Promise<string | undefined> {
  try {
    if (tool === 'edit') return await previewEdit(workspace, params);
    if (tool === 'apply_patch') return await previewPatch(workspace, params);
    if (tool === 'write' && typeof params.path === 'string' && typeof params.content === 'string') {
      const before = await readWholeText(workspace, params.path, 'write', PREVIEW_LIMIT_BYTES).then((r) => r.text, () => '');
      return await diffOf(params.path, before, params.content);
    }
  } catch (err) {
    return `(no preview: ${(err as Error).message})`;
  }
  return undefined;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly sessionAllowed = new Map<string, Set<string>>();

  constructor(private readonly opts: ApprovalBrokerOptions) {}

  readonly gate: ApprovalGate = async (info: ApprovalRequestInfo): Promise<ApprovalOutcome> => {
    const sandboxed = info.toolName === 'exec' ? await this.opts.sandboxed() : true;
    const own = this.opts.toolInfo?.(info.toolName);
    const verdict = decidePolicy(this.opts.config, {
      tool: info.toolName,
      params: info.params,
      sandboxed,
      modeOverride: this.opts.modeOverride,
      ...(own ? { ownMode: own.mode } : {}),
      allowBlocked: await this.plantedScript(info),
    });
    if (verdict.verdict === 'deny') return { allow: false, reason: refusedByPolicyText(verdict.reason) };
    // X5: a protected path is never covered by "auto", a tool rule or an earlier "allow for this session".
    const risks = FILE_WRITERS.has(info.toolName) ? await protectedTargets(info.workspace, info.toolName, info.params) : [];
    if (risks.length === 0) {
      if (verdict.verdict === 'allow') return { allow: true };
      if (this.sessionAllowed.get(info.sessionKey)?.has(info.toolName)) return { allow: true };
    }
    // A subagent's run is not shown where the person answers: refuse at once rather than wait unseen.
    if (info.sessionKey.startsWith(SUBAGENT_SESSION_PREFIX)) {
      return {
        allow: false,
        reason:
          risks.length > 0
            ? `Not run: ${risks.map((r) => r.path).join(', ')} ${risks.length > 1 ? 'are protected paths' : 'is a protected path'} (${risks[0]!.why}); a subagent cannot ask the person to approve that — report what you need and let the main conversation do it.`
            : `Not run: a subagent cannot ask the person to approve ${info.toolName}; report what you need and let the main conversation do it.`,
      };
    }
    return this.ask(info, sandboxed, own?.mcp, risks);
  };

  /** X5: an allow-listed package script that is not the committed one is asked about (planted-script.ts). */
  private async plantedScript(info: ApprovalRequestInfo): Promise<string | undefined> {
    const command = info.toolName === 'exec' && typeof info.params.command === 'string' ? info.params.command.trim() : '';
    if (!command || !allowListed(this.opts.config, command)) return undefined;
    const script = scriptRun(resolveProgram(shellWords(command)));
    return script === undefined ? undefined : plantedScriptReason(info.workspace, script);
  }

  private async ask(info: ApprovalRequestInfo, sandboxed: boolean, mcp?: McpApprovalInfo, risks: ProtectedTarget[] = []): Promise<ApprovalOutcome> {
    if (info.signal.aborted) return { allow: false, reason: 'The run was stopped before this call was approved.' };
    const approvalId = randomUUID();
    const diff = await previewDiff(info.workspace, info.toolName, info.params);
    const timers = this.opts.timers ?? { setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
    const timeoutMs = this.opts.timeoutMs?.() ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const expiresAt = (this.opts.now ?? Date.now)() + timeoutMs;
    const answer = new Promise<{ decision: ApprovalDecision; reason?: string; aborted?: boolean; expired?: boolean; unasked?: boolean }>((resolve) => {
      let timer: unknown;
      const done = (outcome: { decision: ApprovalDecision; reason?: string; aborted?: boolean; expired?: boolean; unasked?: boolean }): void => {
        if (!this.pending.delete(approvalId)) return;
        info.signal.removeEventListener('abort', onAbort);
        timers.clearTimeout(timer);
        resolve(outcome);
      };
      const onAbort = (): void => done({ decision: 'deny', reason: 'the run was stopped while waiting for approval', aborted: true });
      info.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(approvalId, {
        runId: info.runId,
        sessionKey: info.sessionKey,
        toolName: info.toolName,
        settle: (decision, reason, unasked) => done({ decision, reason, unasked }),
      });
      // Nobody answered: refused, and the model is told so (a run never hangs on a card nobody sees).
      timer = timers.setTimeout(() => done({ decision: 'deny', reason: `no answer within ${waitedFor(timeoutMs)}`, expired: true }), timeoutMs);
    });
    info.emit({
      phase: 'request',
      approvalId,
      expiresAt,
      toolCallId: info.toolCallId,
      tool: info.toolName,
      args: info.params,
      cwd: info.workspace,
      ...(diff !== undefined ? { diff } : {}),
      sandboxed,
      ...(mcp ? { mcp } : {}),
      ...(risks.length > 0 ? { risks } : {}),
    });
    const { decision, reason, aborted, expired, unasked } = await answer;
    info.emit({ phase: 'resolved', approvalId, toolCallId: info.toolCallId, decision, ...(reason ? { reason } : {}) });
    if (decision !== 'deny' && risks.length > 0) {
      // This call only: the write tool checks the real path against this grant when it writes.
      this.opts.grants?.grant(info.workspace, risks.map((r) => r.path));
    } else if (decision === 'allow_session') {
      let tools = this.sessionAllowed.get(info.sessionKey);
      if (!tools) this.sessionAllowed.set(info.sessionKey, (tools = new Set()));
      tools.add(info.toolName);
    }
    if (decision !== 'deny') return { allow: true };
    if (aborted) return { allow: false, reason: STOPPED_WHILE_WAITING };
    if (expired) return { allow: false, reason: unansweredText(info.toolName, timeoutMs) };
    if (unasked) return { allow: false, reason: refusedUnaskedText(info.toolName, reason) };
    return { allow: false, reason: deniedByPersonText(info.toolName, reason) };
  }

  /** Answers a pending request. False when there is none with that id (already answered, or the run ended). */
  respond(approvalId: string, decision: ApprovalDecision, reason?: string, unasked?: boolean): boolean {
    const p = this.pending.get(approvalId);
    if (!p) return false;
    p.settle(decision, reason?.trim() || undefined, unasked === true);
    return true;
  }
}
