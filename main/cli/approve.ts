/**
 * How the headless CLI answers approval requests (T3, X5; `--approve ask|auto|deny|unsandboxed`, default from
 * config agent.approvals.mode): ask prompts on the terminal — and refuses when there is no terminal to ask on,
 * saying how to allow instead; deny refuses; auto allows, except two things it never covers:
 * - a command without an OS sandbox: it runs only with `--approve unsandboxed` or config
 *   `agent.approvals.allowUnsandboxed: true`, and then one line on stderr says it did;
 * - a change to a protected path (git hooks and config, shell files, AGENTS.md…: the request's `risks`): that
 *   needs a person's answer to this very request, so auto asks on a terminal and refuses without one.
 * Commands and diffs are shown with control characters escaped (terminal-text.ts). One prompt at a time; each
 * request gets exactly one answer.
 */
import type { ApprovalData, ApprovalDecision } from '../../preload/contract.js';
import type { ApprovalMode } from '../engine/config/schema.js';
import { escapeForTerminal, hasUnsafeControls } from './terminal-text.js';
import {
  cliRefusedLine,
  DENIED_AT_TERMINAL,
  DENY_FLAG_REASON,
  NO_TTY_REASON,
  PROTECTED_NO_TTY_REASON,
  UNSANDBOXED_REASON,
} from '../../preload/messages/approvals.js';

type Request = Extract<ApprovalData, { phase: 'request' }>;
/** `unasked`: the CLI refused by its own rule, without asking anyone (the model is told so, not "the person denied"). */
export type Respond = (approvalId: string, decision: ApprovalDecision, reason?: string, unasked?: boolean) => Promise<unknown>;

export interface PromptIo {
  err: (s: string) => void;
  /** True when stdin and stderr are a terminal. */
  interactive: boolean;
  /** Reads one line from the terminal. */
  ask: (question: string) => Promise<string>;
}

export interface CliApproverOptions {
  /** `--approve unsandboxed` or config agent.approvals.allowUnsandboxed: auto also runs commands without a sandbox. */
  allowUnsandboxed?: boolean;
}

export { NO_TTY_REASON, UNSANDBOXED_REASON, PROTECTED_NO_TTY_REASON };

/** "exec: $ npm test (sandboxed)" — what the prompt and the log line show, control characters escaped. */
export function describeRequest(r: Request): string {
  const what =
    r.tool === 'exec' && typeof r.args.command === 'string'
      ? `$ ${r.args.command}`
      : typeof r.args.path === 'string'
        ? String(r.args.path)
        : JSON.stringify(r.args);
  const where = r.tool === 'exec' ? (r.sandboxed ? ' (sandboxed)' : ' (NOT sandboxed: full access to your files)') : '';
  if (r.mcp) {
    const a = r.mcp.annotations ?? {};
    const hints = [a.readOnlyHint ? 'read-only' : undefined, a.destructiveHint ? 'destructive' : undefined].filter(Boolean);
    return escapeForTerminal(`${r.mcp.tool} on MCP server "${r.mcp.server}"${hints.length ? ` (the server says: ${hints.join(', ')})` : ''}: ${JSON.stringify(r.args)}`);
  }
  const warn = hasUnsafeControls(what) ? ' [it contains control characters, shown escaped]' : '';
  return `${escapeForTerminal(r.tool)}: ${escapeForTerminal(what)}${where}${warn}`;
}

/** The lines naming each protected path and why it is dangerous. */
export function describeRisks(r: Request): string {
  return (r.risks ?? []).map((x) => `agentdesk: PROTECTED ${escapeForTerminal(x.path)}: ${x.why}\n`).join('');
}

/** y/yes → once, s/session → session, anything else → deny. */
export function parseAnswer(line: string): ApprovalDecision {
  const a = line.trim().toLowerCase();
  if (a === 'y' || a === 'yes') return 'allow_once';
  if (a === 's' || a === 'session') return 'allow_session';
  return 'deny';
}

export function createCliApprover(mode: ApprovalMode, io: PromptIo, respond: Respond, opts: CliApproverOptions = {}): (data: ApprovalData) => void {
  let queue: Promise<unknown> = Promise.resolve();
  const prompt = async (data: Request): Promise<unknown> => {
    if (data.diff) io.err(`${escapeForTerminal(data.diff)}\n`);
    io.err(describeRisks(data));
    const choices = data.risks?.length ? '[y] this change only, [N] deny' : '[y] once, [s] this session, [N] deny';
    const answer = parseAnswer(await io.ask(`agentdesk: allow ${describeRequest(data)}? ${choices}: `));
    // A protected change is approved for this call only, whatever was typed.
    const decision: ApprovalDecision = data.risks?.length && answer === 'allow_session' ? 'allow_once' : answer;
    return respond(data.approvalId, decision, decision === 'deny' ? DENIED_AT_TERMINAL : undefined);
  };
  const refuse = (data: Request, reason: string): Promise<unknown> => {
    io.err(`${cliRefusedLine(describeRequest(data), reason)}\n`);
    return respond(data.approvalId, 'deny', reason, true);
  };
  return (data) => {
    if (data.phase !== 'request') return;
    queue = queue.then(async () => {
      if (mode === 'deny') return respond(data.approvalId, 'deny', DENY_FLAG_REASON, true);
      if (mode === 'auto') {
        if (data.risks?.length) return io.interactive ? prompt(data) : refuse(data, PROTECTED_NO_TTY_REASON);
        if (data.tool === 'exec' && !data.sandboxed) {
          if (!opts.allowUnsandboxed) return refuse(data, UNSANDBOXED_REASON);
          io.err(`agentdesk: running WITHOUT a sandbox (allowed by --approve unsandboxed / allowUnsandboxed): ${describeRequest(data)}\n`);
        }
        return respond(data.approvalId, 'allow_once');
      }
      if (!io.interactive) return refuse(data, data.risks?.length ? PROTECTED_NO_TTY_REASON : NO_TTY_REASON);
      return prompt(data);
    }).catch((err: unknown) => io.err(`agentdesk: could not answer an approval request: ${(err as Error).message}\n`));
  };
}

/** The terminal prompt for real use (stdin line by line). */
export function terminalPromptIo(err: (s: string) => void): PromptIo {
  return {
    err,
    interactive: !!process.stdin.isTTY && !!process.stderr.isTTY,
    ask: async (question) => {
      const { createInterface } = await import('node:readline'); // loaded when a question is asked, not at start-up
      return new Promise((resolve) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        rl.question(question, (line) => {
          rl.close();
          resolve(line);
        });
      });
    },
  };
}
