/**
 * System prompt assembly (E9): base instructions + workspace bootstrap files (AGENTS.md…) + runtime info +
 * per-run overrides. Bootstrap files are read through the workspace confinement and capped in size.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import os from 'node:os';
import type { ModelDef, ToolSpec } from '../../providers/types.js';

export const BASE_PROMPT = `You are AgentDesk, a careful assistant that works inside one folder on the user's computer (the workspace).
Use the tools to look at files before you answer questions about them, and to make changes the user asks for.
All paths are relative to the workspace; you cannot reach outside it. Prefer small, verifiable steps.
When you run commands, explain briefly what they do. When you are done, answer plainly and concisely.`;

/** Files at the workspace root that describe the project to the agent, in priority order. */
export const BOOTSTRAP_FILES = ['AGENTS.md', 'CLAUDE.md', '.agentdesk/instructions.md'];
export const BOOTSTRAP_MAX_CHARS = 20_000;

export interface PromptInput {
  workspace: string;
  model: ModelDef;
  tools: readonly ToolSpec[];
  now: number;
  /** Extra system text for this run only. */
  extraSystemPrompt?: string;
  /** Reads a bootstrap file; injectable for tests. Returns undefined when absent. */
  readFileText?: (path: string) => Promise<string | undefined>;
}

async function defaultRead(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

export async function buildSystemPrompt(input: PromptInput): Promise<string> {
  const read = input.readFileText ?? defaultRead;
  const parts = [BASE_PROMPT];
  for (const name of BOOTSTRAP_FILES) {
    const text = await read(join(input.workspace, name));
    if (text === undefined || !text.trim()) continue;
    const body =
      text.length > BOOTSTRAP_MAX_CHARS
        ? `${text.slice(0, BOOTSTRAP_MAX_CHARS)}\n[… ${text.length - BOOTSTRAP_MAX_CHARS} more characters of ${name} not shown]`
        : text;
    parts.push(`## Project instructions (${name})\n${body.trim()}`);
  }
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
