/**
 * `spawn_subagent {task}` (E20): hands a self-contained task to a child agent that runs in its own session (linked
 * to this one) in the subagent lane, and returns the child's final reply as this tool's result. A child cannot
 * spawn children of its own (it does not get this tool).
 */
import { z } from 'zod';
import { lazy } from '../engine/lazy.js';
import type { RunResult } from '../../preload/contract.js';
import { parseArgs } from './args.js';
import { ToolError, type Tool } from './types.js';

const Args = lazy(() => z.strictObject({
  task: z.string({ error: '`task` must be a string' }).trim().min(1, '`task` must not be empty').max(100_000),
}));

export type SpawnFn = (parent: { runId: string; sessionKey: string }, task: string, signal: AbortSignal) => Promise<RunResult>;

export function createSpawnSubagentTool(spawn: SpawnFn): Tool {
  return {
    name: 'spawn_subagent',
    description:
      'Start a subagent: a separate agent with the same workspace tools that works on one self-contained task in ' +
      'its own session and returns its final reply. Give it everything it needs in `task`; it cannot see this chat.',
    parameters: {
      type: 'object',
      properties: { task: { type: 'string', description: 'The complete instructions for the subagent.' } },
      required: ['task'],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const { task } = parseArgs('spawn_subagent', Args, args);
      if (!ctx.run) throw new ToolError('spawn_subagent can only be called from an agent run.');
      const result = await spawn(ctx.run, task, ctx.signal);
      const text = result.payloads.filter((p) => !p.isError).map((p) => p.text).join('\n\n');
      if (result.status !== 'ok') {
        throw new ToolError(`The subagent ended with ${result.status}: ${result.meta.error ?? 'no reply'}`);
      }
      return { content: text || '(the subagent finished without a text reply)', details: { runId: result.runId } };
    },
  };
}
