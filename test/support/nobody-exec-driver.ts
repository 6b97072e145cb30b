/**
 * Runs the real exec tool for a test as whoever starts this script (test/support/as-nobody.ts bundles it and runs
 * it as an unprivileged user). Input: one JSON argument {workspace, network, commands, hide?}; output: one JSON
 * line — the sandbox detected and, per command, the tool's content (or its error message).
 */
import { createExecTool } from '../../main/tools/exec.js';
import { detectSandbox } from '../../main/tools/sandbox/index.js';

interface Input {
  workspace: string;
  network: boolean;
  commands: string[];
  hide?: string[];
  timeoutSeconds?: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input;
const status = await detectSandbox();
const tool = createExecTool({ sandbox: { enabled: true, network: input.network, hide: input.hide ?? [] }, killGraceMs: 300 });
const results: { content: string; details?: unknown }[] = [];
for (const command of input.commands) {
  try {
    const out = await tool.execute({ command, ...(input.timeoutSeconds ? { timeoutSeconds: input.timeoutSeconds } : {}) }, { workspace: input.workspace, signal: new AbortController().signal });
    results.push({ content: out.content, details: out.details });
  } catch (err) {
    results.push({ content: `ERROR ${(err as Error).message}` });
  }
}
process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), status, results })}\n`);
