/**
 * How the headless CLI answers approval requests (T3, `--approve ask|auto|deny`, default from config
 * agent.approvals.mode): auto allows, deny refuses, ask prompts on the terminal — and refuses when there is no
 * terminal to ask on, saying how to allow instead. One prompt at a time; each request gets exactly one answer.
 */
import { createInterface } from 'node:readline';
import type { ApprovalData, ApprovalDecision } from '../../preload/contract.js';
import type { ApprovalMode } from '../engine/config/schema.js';

type Request = Extract<ApprovalData, { phase: 'request' }>;
export type Respond = (approvalId: string, decision: ApprovalDecision, reason?: string) => Promise<unknown>;

export interface PromptIo {
  err: (s: string) => void;
  /** True when stdin and stderr are a terminal. */
  interactive: boolean;
  /** Reads one line from the terminal. */
  ask: (question: string) => Promise<string>;
}

export const NO_TTY_REASON = 'no terminal to ask on (run with --approve auto to allow such calls)';

/** "exec: $ npm test (sandboxed)" — what the prompt and the log line show. */
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
    return `${r.mcp.tool} on MCP server "${r.mcp.server}"${hints.length ? ` (the server says: ${hints.join(', ')})` : ''}: ${JSON.stringify(r.args)}`;
  }
  return `${r.tool}: ${what}${where}`;
}

/** y/yes → once, s/session → session, anything else → deny. */
export function parseAnswer(line: string): ApprovalDecision {
  const a = line.trim().toLowerCase();
  if (a === 'y' || a === 'yes') return 'allow_once';
  if (a === 's' || a === 'session') return 'allow_session';
  return 'deny';
}

export function createCliApprover(mode: ApprovalMode, io: PromptIo, respond: Respond): (data: ApprovalData) => void {
  let queue: Promise<unknown> = Promise.resolve();
  return (data) => {
    if (data.phase !== 'request') return;
    queue = queue.then(async () => {
      if (mode === 'auto') return respond(data.approvalId, 'allow_once');
      if (mode === 'deny') return respond(data.approvalId, 'deny', 'denied by --approve deny');
      if (!io.interactive) {
        io.err(`agentdesk: denied ${describeRequest(data)}: ${NO_TTY_REASON}\n`);
        return respond(data.approvalId, 'deny', NO_TTY_REASON);
      }
      if (data.diff) io.err(`${data.diff}\n`);
      const answer = parseAnswer(await io.ask(`agentdesk: allow ${describeRequest(data)}? [y] once, [s] this session, [N] deny: `));
      return respond(data.approvalId, answer, answer === 'deny' ? 'denied at the terminal' : undefined);
    }).catch((err: unknown) => io.err(`agentdesk: could not answer an approval request: ${(err as Error).message}\n`));
  };
}

/** The terminal prompt for real use (stdin line by line). */
export function terminalPromptIo(err: (s: string) => void): PromptIo {
  return {
    err,
    interactive: !!process.stdin.isTTY && !!process.stderr.isTTY,
    ask: (question) =>
      new Promise((resolve) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        rl.question(question, (line) => {
          rl.close();
          resolve(line);
        });
      }),
  };
}
