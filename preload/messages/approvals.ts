/**
 * T3/X5 a tool call that did not run because of its approval — worded by who decided. The model reads these as the
 * call's result, and the person reads the same text under the tool (CLI stderr, the window's tool card), so each
 * says what really happened: a person said no; the approval settings said no; nobody could be asked (a CLI run
 * without a terminal) — never "the person denied" when no person was asked; nobody answered in time; the run was
 * stopped.
 */
import { formatWait } from './format.js';

/** Who refused a call, as the approval's answer carries it (approvals.respond `unasked`). */
export type RefusedBy = 'person' | 'nobody-asked';

/** The person clicked Deny (or answered "n" at the terminal). */
export function deniedByPersonText(tool: string, reason?: string): string {
  return `The person denied this ${tool} call${reason ? `: ${reason}` : ''}. It did not run; do not retry it unchanged.`;
}

/** No person was asked: the client answering approvals could not ask anyone (e.g. a CLI run without a terminal). */
export function refusedUnaskedText(tool: string, reason?: string): string {
  return `This ${tool} call needs approval and nobody could be asked${reason ? ` (${reason})` : ''}, so it did not run. Do not retry it now; say in your reply what you wanted to do, so the person can allow it.`;
}

/** The approval settings (mode deny, denyTools, denyCommands, an MCP server's setting) refuse the call. */
export function refusedByPolicyText(why: string): string {
  return `Not run: ${why}.`;
}

/** Nobody answered the card within the approval timeout. */
export function unansweredText(tool: string, waitedMs: number): string {
  return `Nobody answered the request to approve this ${tool} call within ${formatWait(waitedMs)}, so it did not run. Do not retry it now; say in your reply what you wanted to do, so the person can allow it next time.`;
}

export const STOPPED_WHILE_WAITING = 'The run was stopped while waiting for approval; the call did not run.';

// The CLI's answers (main/cli/approve.ts): why it refused without asking, and the line it prints on stderr.

/** `--approve ask` (the default) without a terminal. */
export const NO_TTY_REASON = 'no terminal to ask on: run with --approve auto to allow such calls, or run it in a terminal to be asked';
/** A command without an OS sandbox under `--approve auto`. */
export const UNSANDBOXED_REASON =
  'commands run without a sandbox here, and --approve auto does not cover that (use --approve unsandboxed, or set agent.approvals.allowUnsandboxed in config.json, to allow it)';
/** A change to a protected path without a terminal: only a person's answer to this very change allows it. */
export const PROTECTED_NO_TTY_REASON =
  'it changes a protected path, which needs a person to approve this very change, and there is no terminal to ask on';
/** `--approve deny`. */
export const DENY_FLAG_REASON = 'refused by --approve deny';
/** The person answered "n" at the terminal. */
export const DENIED_AT_TERMINAL = 'denied at the terminal';

/** "agentdesk: not run, nobody was asked: exec: $ ls (sandboxed): no terminal to ask on: …" */
export function cliRefusedLine(what: string, reason: string): string {
  return `agentdesk: not run, nobody was asked: ${what}: ${reason}`;
}
