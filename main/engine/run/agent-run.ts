/**
 * One agent run, end to end: lifecycle events, the run timeout (default 600 s) and user abort sharing one signal
 * with every HTTP call and tool, the user message persisted before anything can fail, the attempt, usage totals and
 * the final RunResult. The run never throws: every failure becomes a `lifecycle` error event and an error result.
 */
import type { RunResult, RunStatus } from '../../../preload/contract.js';
import type { ModelDef, StreamFn, ThinkingLevel } from '../../providers/types.js';
import type { Tool } from '../../tools/types.js';
import type { Message, Usage } from '../messages.js';
import { emptyUsage } from '../messages.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { EngineHooks } from '../attempt/hooks.js';
import type { ResolvedKey } from '../../auth/keys.js';
import type { SessionStore } from '../../sessions/store.js';
import { runAttempt } from '../attempt/attempt.js';
import { buildSystemPrompt } from '../attempt/system-prompt.js';
import { buildPayloads } from '../stream/payloads.js';
import { classifyError } from '../classify.js';

export interface RunSpec {
  runId: string;
  sessionKey: string;
  sessionId: string;
  message: string;
  model: ModelDef;
  thinking: ThinkingLevel;
  timeoutMs: number;
  /** Extra HTTP headers for provider calls (tests pick fake-server scenarios with them). */
  headers?: Record<string, string>;
}

export interface Timers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export interface RunDeps {
  store: SessionStore;
  tools: readonly Tool[];
  workspace: string;
  hooks: EngineHooks;
  now: () => number;
  timers: Timers;
  resolveKey: (model: ModelDef) => Promise<ResolvedKey>;
  streamFnFor: (model: ModelDef) => StreamFn;
  idleTimeoutMs: (model: ModelDef) => number;
}

export class RunTimeoutError extends Error {
  override name = 'RunTimeoutError';
}

export const nodeTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export async function executeRun(
  spec: RunSpec,
  deps: RunDeps,
  emitter: RunEmitter,
  external: AbortSignal,
): Promise<RunResult> {
  const startedAt = deps.now();
  const { model } = spec;
  emitter.emit('lifecycle', {
    phase: 'start',
    startedAt,
    provider: model.provider,
    model: model.id,
    ...(model.api === 'demo' ? { demo: true } : {}),
  });

  const controller = new AbortController();
  const onExternalAbort = () => controller.abort(external.reason ?? abortError('The run was stopped.'));
  if (external.aborted) onExternalAbort();
  else external.addEventListener('abort', onExternalAbort, { once: true });
  const timer = deps.timers.setTimeout(
    () => controller.abort(new RunTimeoutError(`The run timed out after ${Math.round(spec.timeoutMs / 1000)} s.`)),
    spec.timeoutMs,
  );

  let profileId: string | null = null;
  let usage: Usage = emptyUsage();
  let texts: string[] = [];
  let toolErrors = 0;
  let error: unknown;
  try {
    const history = await deps.store.loadMessages(spec.sessionId);
    const userMessage: Message = { role: 'user', content: spec.message, timestamp: deps.now() };
    await deps.store.append(spec.sessionId, userMessage);
    const key = await deps.resolveKey(model);
    profileId = key.profileId;
    const systemPrompt = await buildSystemPrompt({ workspace: deps.workspace, model, tools: deps.tools, now: deps.now() });
    const attempt = await runAttempt({
      runId: spec.runId,
      sessionKey: spec.sessionKey,
      model,
      apiKey: key.apiKey,
      streamFn: deps.streamFnFor(model),
      systemPrompt,
      messages: [...history, userMessage],
      tools: deps.tools,
      workspace: deps.workspace,
      thinking: model.reasoning ? spec.thinking : 'off',
      signal: controller.signal,
      idleTimeoutMs: deps.idleTimeoutMs(model),
      emitter,
      hooks: deps.hooks,
      now: deps.now,
      persist: (m) => deps.store.append(spec.sessionId, m),
      headers: spec.headers,
    });
    usage = attempt.usage;
    texts = attempt.texts;
    toolErrors = attempt.toolErrors;
    if (attempt.kind === 'error') error = attempt.error;
  } catch (err) {
    error = err;
  } finally {
    deps.timers.clearTimeout(timer);
    external.removeEventListener('abort', onExternalAbort);
  }

  // The abort reason wins over whatever the provider reported for the aborted request.
  const reason = controller.signal.aborted ? controller.signal.reason : undefined;
  const status: RunStatus =
    error === undefined ? 'ok' : reason instanceof RunTimeoutError ? 'timeout' : 'error';
  const errorText = error === undefined ? undefined : describeRunError(reason ?? error);

  try {
    await deps.store.update(spec.sessionKey, { model: `${model.provider}/${model.id}`, addUsage: usage });
  } catch (err) {
    console.error(`[agentdesk] could not update the session index: ${(err as Error).message}`);
  }

  const result: RunResult = {
    runId: spec.runId,
    status,
    payloads: buildPayloads({ texts, errorText, toolErrors }),
    usage,
    meta: {
      provider: model.provider,
      model: model.id,
      profileId,
      attempts: 1,
      compactions: 0,
      ...(errorText ? { error: errorText } : {}),
    },
  };
  const endedAt = deps.now();
  if (status === 'ok') emitter.emit('lifecycle', { phase: 'end', endedAt, result });
  else emitter.emit('lifecycle', { phase: 'error', endedAt, error: errorText ?? 'unknown error', result });
  return result;
}

function abortError(message: string): Error {
  const err = new Error(message);
  err.name = 'AbortError';
  return err;
}

/** One clear line for the user. Known local errors keep their own message; provider errors are classified (E8). */
export function describeRunError(err: unknown): string {
  if (err instanceof Error && ['RunTimeoutError', 'AbortError', 'NoApiKeyError', 'KeychainUnavailableError', 'ModelNotFoundError'].includes(err.name)) {
    return err.message;
  }
  return classifyError(err).message;
}
