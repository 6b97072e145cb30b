/**
 * The one wrapper every tool call goes through (E12): name normalisation, argument checks, before_tool_call hook
 * (may change params or block), execution with the run's abort signal, live updates, error formatting, the
 * after_tool_call hook (fire-and-forget, with durationMs) and a ToolResultMessage — also for failures (`isError`).
 */
import type { ToolCallBlock, ToolResultMessage } from '../messages.js';
import type { Tool } from '../../tools/types.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { HookRunner } from './hook-runner.js';
import { truncateToolResultText } from './tool-result-truncation.js';
import { runApprovalStep } from './approvals.js';
import { runCheckpointStep } from './checkpoint-step.js';

export interface ToolRunContext {
  runId: string;
  sessionKey: string;
  tools: readonly Tool[];
  workspace: string;
  signal: AbortSignal;
  emitter: RunEmitter;
  /** Every hook call is isolated and time-boxed by the runner (E19). */
  hooks: HookRunner;
  now: () => number;
  /** Calls whose arguments could not be parsed or were cut off (providers/tool-args.ts), by tool call id. */
  parseErrors?: ReadonlyMap<string, string>;
  /** Calls a stream layer found malformed (blank/over-long/unknown name), by id: answered with this error. */
  invalidCalls?: ReadonlyMap<string, string>;
  /** T4: characters one result may keep (a share of the run's context window); tools learn it too. */
  resultMaxChars?: number;
}

/** Trims and case-folds a tool name the model may have drifted on (" read", "Read"). */
export function findTool(tools: readonly Tool[], name: string): Tool | undefined {
  const wanted = name.trim();
  return tools.find((t) => t.name === wanted) ?? tools.find((t) => t.name.toLowerCase() === wanted.toLowerCase());
}

const errorText = (err: unknown): string =>
  err instanceof Error ? err.message || err.name : typeof err === 'string' ? err : JSON.stringify(err);

export async function runToolCall(call: ToolCallBlock, ctx: ToolRunContext): Promise<ToolResultMessage> {
  const started = ctx.now();
  const tool = findTool(ctx.tools, call.name);
  const toolName = tool?.name ?? call.name;
  let params = call.arguments;
  ctx.emitter.emit('tool', { phase: 'start', toolCallId: call.id, name: toolName, args: params });

  let content: string;
  let images: ToolResultMessage['images'];
  let isError = false;
  try {
    const parseError = ctx.parseErrors?.get(call.id);
    const invalid = ctx.invalidCalls?.get(call.id);
    if (invalid !== undefined) throw new Error(invalid);
    if (!tool) {
      throw new Error(`Unknown tool "${call.name}". Available tools: ${ctx.tools.map((t) => t.name).join(', ')}.`);
    }
    if (parseError) {
      throw new Error(`The call to ${toolName} was not run: ${parseError}.`);
    }
    if (ctx.signal.aborted) throw new Error('The run was aborted before this tool ran.');
    if (ctx.hooks.has('before_tool_call')) {
      const decision = await ctx.hooks.beforeToolCall({
        runId: ctx.runId,
        sessionKey: ctx.sessionKey,
        toolCallId: call.id,
        toolName,
        params,
      });
      if (decision.block) throw new Error(decision.reason ?? `The call to ${toolName} was blocked by a hook.`);
      params = decision.params;
    }
    await runApprovalStep(ctx.hooks.approvals, {
      runId: ctx.runId,
      sessionKey: ctx.sessionKey,
      toolCallId: call.id,
      toolName,
      params,
      workspace: ctx.workspace,
      signal: ctx.signal,
      emit: (data) => ctx.emitter.emit('approval', data),
    });
    // X2: the workspace is recorded before the turn's first change (approved calls only; never fails the call).
    await runCheckpointStep(ctx.hooks.checkpoint, tool, {
      runId: ctx.runId,
      sessionKey: ctx.sessionKey,
      toolName,
      workspace: ctx.workspace,
      emit: (data) => ctx.emitter.emit('checkpoint', data),
    }, params);
    const output = await tool.execute(params, {
      workspace: ctx.workspace,
      run: { runId: ctx.runId, sessionKey: ctx.sessionKey },
      signal: ctx.signal,
      ...(ctx.resultMaxChars !== undefined ? { resultMaxChars: ctx.resultMaxChars } : {}),
      onUpdate: (partial) =>
        ctx.emitter.emit('tool', { phase: 'update', toolCallId: call.id, name: toolName, partial }),
    });
    content = output.content;
    if (output.images?.length) images = output.images;
  } catch (err) {
    isError = true;
    content = errorText(err);
  }

  if (ctx.resultMaxChars !== undefined) content = truncateToolResultText(content, ctx.resultMaxChars);
  const durationMs = ctx.now() - started;
  ctx.emitter.emit('tool', { phase: 'end', toolCallId: call.id, name: toolName, result: content, isError, durationMs });
  // Fire-and-forget: the run never waits for it, and its failure is only logged.
  void ctx.hooks.fire('after_tool_call', {
    runId: ctx.runId,
    sessionKey: ctx.sessionKey,
    toolCallId: call.id,
    toolName,
    params,
    result: content,
    isError,
    durationMs,
  });
  return { role: 'toolResult', toolCallId: call.id, toolName, content, isError, timestamp: ctx.now(), durationMs, ...(images ? { images } : {}) };
}
