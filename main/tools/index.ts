/** The workspace tool set (T1): list, read, write, edit, apply_patch, find, grep, exec. */
import type { ToolSpec } from '../providers/types.js';
import { createApplyPatchTool } from './apply-patch.js';
import { createEditTool } from './edit.js';
import { createExecTool, type ExecToolOptions } from './exec.js';
import { createProcessTool } from './processes.js';
import type { SandboxSettings } from './sandbox/index.js';
import { createFindTool } from './find.js';
import { createGrepTool } from './grep.js';
import { createListTool } from './list.js';
import { createReadTool } from './read.js';
import type { Tool } from './types.js';
import type { ProtectedGrants } from './protected/grants.js';
import { createWriteTool } from './write.js';

export interface WorkspaceToolOptions {
  /** Default exec timeout (clamped to 600 s). */
  execTimeoutMs?: number;
  /** exec output cap in characters (head + tail kept). */
  outputCapChars?: number;
  /** read output cap in characters. */
  readCapChars?: number;
  /** The exec sandbox (config agent.sandbox / agent.network; the app's data folder hidden). */
  sandbox?: SandboxSettings;
  /** Names and values of configured keys that must not reach commands. */
  secrets?: ExecToolOptions['secrets'];
  /** The person's approvals of protected paths (X5), shared with the approval gate; none: protected paths are refused. */
  grants?: ProtectedGrants;
}

export function createWorkspaceTools(opts: WorkspaceToolOptions = {}): Tool[] {
  return [
    createListTool(),
    createReadTool({ capChars: opts.readCapChars }),
    createWriteTool({ grants: opts.grants }),
    createEditTool({ grants: opts.grants }),
    createApplyPatchTool({ grants: opts.grants }),
    createFindTool(),
    createGrepTool(),
    createExecTool({ timeoutMs: opts.execTimeoutMs, capChars: opts.outputCapChars, sandbox: opts.sandbox, secrets: opts.secrets }),
    createProcessTool(),
  ];
}

/** What the model sees of each tool: name, description, JSON-Schema parameters (no execute). */
export function toolSpecsOf(tools: readonly Tool[]): ToolSpec[] {
  return tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}

export { realWorkspace, resolveInWorkspace } from './paths.js';
export { ToolError } from './types.js';
export type { Tool, ToolContext, ToolOutput } from './types.js';
