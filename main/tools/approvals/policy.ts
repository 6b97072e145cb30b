/**
 * Approval policy (T3), pure: for one tool call, allow it, refuse it, or ask the person. Read-only tools never
 * ask; exec, write, edit and apply_patch follow the mode (config agent.approvals.mode, a per-tool override, or
 * the CLI's --approve). Where exec has no OS sandbox it always asks (even in "auto"), unless it is denied.
 *
 * X5, command lists (command-words.ts): an allowCommands prefix trusts the whole program, so it applies only to
 * a plain sandboxed command without an argument that makes the program run something else (`git -c`, `git
 * config`, `find -exec`, `npx`, …) and, for a package script, only while the script is the committed one
 * (planted-script.ts, checked by the broker). denyCommands is advisory: it resolves the program through quotes,
 * backslashes, wrappers (`env`, `command`, `sudo`…), absolute paths, `$(…)`, backticks and `sh -c`, but a shell
 * can always spell a name some other way.
 */
import type { ApprovalsConfig, ApprovalMode } from '../../engine/config/schema.js';
import { commandsIn, escapeArgument, resolveProgram, shellWords, startsWithWords } from './command-words.js';

export type PolicyVerdict = { verdict: 'allow' } | { verdict: 'deny'; reason: string } | { verdict: 'ask' };

/** Tools that change the workspace or run commands. */
export const NEEDS_APPROVAL: ReadonlySet<string> = new Set(['exec', 'write', 'edit', 'apply_patch']);

/** Characters that chain or redirect commands: an allow-listed prefix only counts for a plain command. */
const SHELL_CONTROL = /[;&|`$<>\n\\]|\(\)/;

const matchesPrefix = (command: string, prefix: string): boolean => {
  const p = prefix.trim();
  return command === p || command.startsWith(`${p} `);
};

/** Every simple command of a command line (split at ; && || | and newlines), for deny lists. */
export function commandSegments(command: string): string[] {
  return command
    .split(/&&|\|\||[;|\n&]/)
    .map((s) => s.trim().replace(/^[({]\s*/, ''))
    .filter((s) => s !== '');
}

export interface PolicyInput {
  tool: string;
  params: Record<string, unknown>;
  /** Whether exec runs in an OS sandbox here. */
  sandboxed: boolean;
  /** The CLI's --approve, overriding the configured modes. */
  modeOverride?: ApprovalMode;
  /**
   * X1: the mode a tool outside the built-in set asks for (an MCP tool: its server's `approval`, `auto` for a tool in
   * its `alwaysAllow`). `auto` runs without asking, `deny` never runs, `ask` follows --approve like exec does.
   */
  ownMode?: ApprovalMode;
  /** Why an allowCommands match must not count (a package script that is not the committed one; broker.ts). */
  allowBlocked?: string;
}

/** Whether an allowCommands prefix lets `command` run without asking (see above). */
export function allowListed(cfg: ApprovalsConfig, command: string): boolean {
  if (SHELL_CONTROL.test(command) || !cfg.allowCommands.some((p) => matchesPrefix(command, p))) return false;
  return escapeArgument(resolveProgram(shellWords(command))) === undefined;
}

export function decidePolicy(cfg: ApprovalsConfig, input: PolicyInput): PolicyVerdict {
  const { tool } = input;
  const command = tool === 'exec' && typeof input.params.command === 'string' ? input.params.command.trim() : '';
  if (cfg.denyTools.includes(tool)) {
    return { verdict: 'deny', reason: `${tool} is turned off in the approval settings (denyTools); do not call it again` };
  }
  if (tool === 'exec') {
    const resolved = commandsIn(command);
    const denied = cfg.denyCommands.find(
      (p) => commandSegments(command).some((seg) => matchesPrefix(seg, p)) || resolved.some((words) => startsWithWords(words, p)),
    );
    if (denied !== undefined) {
      return { verdict: 'deny', reason: `commands starting with "${denied}" are refused by the approval settings (denyCommands)` };
    }
  }
  const unsandboxedExec = tool === 'exec' && !input.sandboxed;
  if (cfg.allowTools.includes(tool)) return unsandboxedExec ? { verdict: 'ask' } : { verdict: 'allow' };
  if (tool === 'exec' && input.sandboxed && input.allowBlocked === undefined && allowListed(cfg, command)) return { verdict: 'allow' };
  if (input.ownMode !== undefined && !NEEDS_APPROVAL.has(tool)) {
    if (input.ownMode === 'deny') return { verdict: 'deny', reason: `${tool} is refused by its MCP server's approval setting; do not call it again` };
    if (input.ownMode === 'auto') return { verdict: 'allow' };
    const own = input.modeOverride ?? cfg.tools[tool] ?? 'ask';
    if (own === 'deny') return { verdict: 'deny', reason: `approvals are set to deny: ${tool} calls are refused without asking` };
    return own === 'auto' ? { verdict: 'allow' } : { verdict: 'ask' };
  }
  if (!NEEDS_APPROVAL.has(tool)) return { verdict: 'allow' };
  const mode = input.modeOverride ?? cfg.tools[tool] ?? cfg.mode;
  if (mode === 'deny') {
    return { verdict: 'deny', reason: `approvals are set to deny: ${tool} calls are refused without asking` };
  }
  if (mode === 'auto') return unsandboxedExec ? { verdict: 'ask' } : { verdict: 'allow' };
  return { verdict: 'ask' };
}
