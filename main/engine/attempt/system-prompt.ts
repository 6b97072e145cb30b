/**
 * System prompt assembly (E9): base instructions + workspace bootstrap files (AGENTS.md…) + skills + runtime info +
 * per-run overrides. Bootstrap files are read THROUGH the workspace confinement (main/tools/paths.ts): an AGENTS.md
 * that is a symlink to a file outside the workspace is left out, like any path a tool could not open. Each file is
 * capped, and so is their total. Plugins may change the bootstrap files (`agent:bootstrap`); the run applies
 * `before_prompt_build` to the finished prompt (prompt-build.ts), where it sees the person's message too.
 */
import { open } from 'node:fs/promises';
import os from 'node:os';
import type { ModelDef, ToolSpec } from '../../providers/types.js';
import { resolveInWorkspace } from '../../tools/paths.js';
import type { HookContext } from './hooks.js';
import type { HookRunner } from './hook-runner.js';
import { skillsSection, type Skill } from './skills.js';

export const BASE_PROMPT = `You are AgentDesk, a careful assistant that works inside one folder on the user's computer (the workspace).
Use the tools to look at files before you answer questions about them, and to make changes the user asks for.
All paths are relative to the workspace; you cannot reach outside it. Prefer small, verifiable steps.
When you run commands, explain briefly what they do. When you are done, answer plainly and concisely.`;

/** Files at the workspace root that describe the project to the agent, in priority order. */
export const BOOTSTRAP_FILES = ['AGENTS.md', 'CLAUDE.md', '.agentdesk/instructions.md'];
export const BOOTSTRAP_MAX_CHARS = 20_000;
/** All bootstrap files together. */
export const BOOTSTRAP_TOTAL_MAX_CHARS = 40_000;

export interface PromptInput {
  /** Real path of the workspace. */
  workspace: string;
  model: ModelDef;
  tools: readonly ToolSpec[];
  now: number;
  /** Extra system text for this run only. */
  extraSystemPrompt?: string;
  /** Reads a bootstrap file by name; injectable for tests. Returns undefined when absent or not allowed. */
  readBootstrap?: (name: string, maxChars: number) => Promise<string | undefined>;
  skills?: readonly Skill[];
  hooks?: HookRunner;
  hookContext?: HookContext;
}

/**
 * Reads `name` inside the workspace, confined: the path is resolved with symlinks and refused when it leaves the
 * workspace; what is read is the checked real path. At most `maxChars` characters (4 bytes each at worst) are read.
 */
export async function readConfined(workspace: string, name: string, maxChars: number): Promise<string | undefined> {
  let real: string;
  try {
    real = await resolveInWorkspace(workspace, name);
  } catch {
    return undefined; // missing, or outside the workspace
  }
  const handle = await open(real, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buf = Buffer.alloc(maxChars * 4 + 4);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Caps one file's text; the note says how much was left out. */
export function capText(text: string, max: number, name: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… more of ${name} not shown: it is longer than ${max} characters]`;
}

export async function buildSystemPrompt(input: PromptInput): Promise<string> {
  const read = input.readBootstrap ?? ((name: string, max: number) => readConfined(input.workspace, name, max));
  const ctx = input.hookContext ?? { workspace: input.workspace };
  let files: { name: string; content: string }[] = [];
  let budget = BOOTSTRAP_TOTAL_MAX_CHARS;
  for (const name of BOOTSTRAP_FILES) {
    if (budget <= 0) break;
    const max = Math.min(BOOTSTRAP_MAX_CHARS, budget);
    const text = await read(name, max + 1);
    if (text === undefined || !text.trim()) continue;
    const content = capText(text, max, name);
    budget -= Math.min(text.length, max);
    files.push({ name, content });
  }
  if (input.hooks?.has('agent:bootstrap')) files = await input.hooks.bootstrapFiles(files, ctx);

  const parts = [BASE_PROMPT];
  for (const f of files) parts.push(`## Project instructions (${f.name})\n${f.content.trim()}`);
  const skills = skillsSection(input.skills ?? []);
  if (skills) parts.push(skills);
  parts.push(
    [
      '## Runtime',
      `- Workspace: ${input.workspace}`,
      `- OS: ${os.platform()} ${os.release()}`,
      `- Date: ${new Date(input.now).toISOString().slice(0, 10)}`,
      `- Model: ${input.model.provider}/${input.model.id}`,
      `- Tools: ${input.tools.map((t) => t.name).join(', ') || 'none'}`,
    ].join('\n'),
  );
  if (input.extraSystemPrompt?.trim()) parts.push(input.extraSystemPrompt.trim());
  return parts.join('\n\n');
}
