/**
 * One agent run, end to end: lifecycle events, the run timeout (default 600 s) and user abort sharing one signal
 * with every HTTP call, sleep and tool, the user message persisted before anything can fail, the outer loop
 * (outer-loop.ts) and the final RunResult. The run never throws: every failure becomes a `lifecycle` error event
 * and an error result. The deadline holds whatever the loop is doing: the result is settled as soon as the signal
 * fires, and anything still running after that (a hook or tool ignoring the signal) can no longer write.
 */
import type { RunResult, RunStatus } from '../../../preload/contract.js';
import type { ModelDef, ThinkingLevel } from '../../providers/types.js';
import type { Attachment, Message } from '../messages.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import { buildPayloads } from '../stream/payloads.js';
import { asHookRunner } from '../attempt/hook-runner.js';
import { deliverPayloads } from './run-hooks.js';
import { classifyError } from '../classify.js';
import { contextWarning, runOuterLoop, type LoopDeps, type LoopOutcome } from './outer-loop.js';
import type { SteerInbox } from '../attempt/steer.js';
import { newRunCompaction, type RunCompaction } from '../attempt/run-compaction.js';
import { abortError } from '../abort.js';
import { runPromptBuild, shapeSystemPrompt } from '../attempt/prompt-build.js';
import { buildSystemPrompt } from '../attempt/system-prompt.js';
import { UsageMeter } from './usage-meter.js';

export { nodeTimers, type Timers } from '../timers.js';

export interface RunSpec {
  runId: string;
  sessionKey: string;
  sessionId: string;
  message: string;
  /** X3: images and text files attached to the message (stored references). */
  attachments?: Attachment[];
  model: ModelDef;
  /** `agent.model.fallbacks`, resolved, tried in order after the primary. */
  fallbacks?: readonly ModelDef[];
  thinking: ThinkingLevel;
  timeoutMs: number;
  /** Extra HTTP headers for provider calls (tests pick fake-server scenarios with them). */
  headers?: Record<string, string>;
  /** E3 steer: messages injected into the tool loop (the dispatcher fills it). */
  steer?: SteerInbox;
  /** E10/E18: the run's compaction state, shared with the registry (`isCompacting`). */
  compaction?: RunCompaction;
  /** E22: send only the last N turns of the history (the session's, else agent.historyTurns). */
  historyTurns?: number;
}

export type RunDeps = LoopDeps;

export class RunTimeoutError extends Error {
  override name = 'RunTimeoutError';
}

/** After the deadline, how long the loop may take to settle before the result is built without it. */
const ABORT_GRACE_MS = 250;

export async function executeRun(
  spec: RunSpec,
  deps: RunDeps,
  emitter: RunEmitter,
  external: AbortSignal,
): Promise<RunResult> {
  const startedAt = deps.now();
  const { model } = spec;
  const hooks = asHookRunner(deps.hooks);
  const hookCtx = { runId: spec.runId, sessionKey: spec.sessionKey, sessionId: spec.sessionId, workspace: deps.workspace };
  const warning = contextWarning(model, deps.contextTokens(model));
  emitter.emit('lifecycle', {
    phase: 'start',
    startedAt,
    provider: model.provider,
    model: model.id,
    ...(model.api === 'demo' ? { demo: true } : {}),
    ...(warning ? { warning } : {}),
  });

  const controller = new AbortController();
  const onExternalAbort = () => controller.abort(external.reason ?? abortError('The run was stopped.'));
  if (external.aborted) onExternalAbort();
  else external.addEventListener('abort', onExternalAbort, { once: true });
  const timer = deps.timers.setTimeout(
    () => controller.abort(new RunTimeoutError(`The run timed out after ${Math.round(spec.timeoutMs / 1000)} s.`)),
    spec.timeoutMs,
  );
  let settled = false;
  const persist = (m: Message) => (settled ? Promise.resolve() : deps.store.append(spec.sessionId, m));
  const aborted = new Promise<'aborted'>((resolve) => {
    if (controller.signal.aborted) resolve('aborted');
    else controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });

  let loop: LoopOutcome | undefined;
  let error: unknown;
  const compaction = spec.compaction ?? newRunCompaction();
  const meter = new UsageMeter((d) => emitter.emit('usage', d)); // E17: every call billed, as it happens
  try {
    const history = await deps.store.loadContext(spec.sessionId);
    // E19 before_prompt_build: once per run, with the person's message, the session's messages and the system prompt.
    const promptOf = systemPrompts(deps);
    const shaped = await runPromptBuild(hooks, { prompt: spec.message, systemPrompt: await promptOf(model), messages: history.messages }, hookCtx);
    const context = shaped.prependContext?.trim();
    const userMessage: Message = {
      role: 'user',
      content: spec.message,
      timestamp: deps.now(),
      ...(context ? { context } : {}),
      ...(spec.attachments?.length ? { attachments: spec.attachments } : {}),
    };
    await deps.store.append(spec.sessionId, userMessage);
    void hooks.fire('message_received', { content: spec.message }, hookCtx);
    const running = runOuterLoop(
      {
        runId: spec.runId,
        sessionKey: spec.sessionKey,
        sessionId: spec.sessionId,
        models: [model, ...(spec.fallbacks ?? [])],
        thinking: spec.thinking,
        headers: spec.headers,
        messages: [...history.messages, userMessage],
        summary: history.summary,
        sinceCompaction: history.sinceCompaction,
        compaction,
        persist,
        steer: spec.steer,
        meter,
        ...(spec.historyTurns ? { historyTurns: spec.historyTurns } : {}),
      },
      { ...deps, systemPrompt: async (m) => shapeSystemPrompt(await promptOf(m), shaped) },
      emitter,
      controller.signal,
    );
    running.catch(() => undefined); // settled below, or abandoned after the deadline
    const first = await Promise.race([running, aborted]);
    if (first === 'aborted') {
      error = controller.signal.reason;
      // A loop that honours the signal settles at once: keep what it completed (texts, usage, attempts).
      const grace = new Promise<undefined>((resolve) => deps.timers.setTimeout(() => resolve(undefined), ABORT_GRACE_MS));
      loop = await Promise.race([running, grace]);
    } else {
      loop = first;
      error = first.error;
    }
  } catch (err) {
    error = err;
  } finally {
    // E18 (the seed's wait-for-compaction-retry, resolved at agent end): retries that no attempt resolved end with the
    // run, and a compaction still in flight — a run stopped mid-summary — is waited for (its signal is the run's, so
    // it ends at once), so nothing is written after the run; then unsubscribing aborts what is left and rejects
    // any waiter with an AbortError.
    compaction.coordinator.endRun();
    await waitAtMost(compaction.coordinator.wait().catch(() => undefined), ABORT_GRACE_MS, deps.timers);
    settled = true;
    compaction.coordinator.unsubscribe();
    deps.timers.clearTimeout(timer);
    external.removeEventListener('abort', onExternalAbort);
  }

  // The abort reason wins over whatever the provider reported for the aborted request.
  const reason = controller.signal.aborted ? controller.signal.reason : undefined;
  const status: RunStatus =
    error === undefined ? 'ok' : reason instanceof RunTimeoutError ? 'timeout' : 'error';
  const errorText = error === undefined ? undefined : describeRunError(reason ?? error);
  const usage = loop?.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  const used = loop?.model ?? model;
  const billed = meter.billing;
  const context = loop?.context || undefined;

  try {
    await deps.store.update(spec.sessionKey, { model: `${used.provider}/${used.id}`, addBilling: billed, ...(context ? { context } : {}) });
  } catch (err) {
    console.error(`[agentdesk] could not update the session index: ${(err as Error).message}`);
  }

  // E19: message_sending may rewrite or cancel each payload (time-boxed like every hook).
  const shaped = buildPayloads({
    parts: loop?.parts ?? [],
    errorText,
    toolErrors: loop?.toolErrors ?? 0,
    verbose: deps.verbose === true,
    reasoning: loop?.reasoning ?? [],
    sentNormalized: loop?.sentNormalized ?? [],
  });
  const payloads = await deliverPayloads(hooks, shaped, hookCtx);
  const result: RunResult = {
    runId: spec.runId,
    status,
    payloads,
    usage,
    meta: {
      provider: used.provider,
      model: used.id,
      profileId: loop?.profileId ?? null,
      attempts: loop?.attempts ?? (error === undefined ? 1 : 0),
      compactions: compaction.compactions,
      ...(errorText ? { error: errorText } : {}),
      usage: billed,
      ...(context ? { context } : {}),
    },
  };
  const endedAt = deps.now();
  if (status === 'ok') emitter.emit('lifecycle', { phase: 'end', endedAt, result });
  else emitter.emit('lifecycle', { phase: 'error', endedAt, error: errorText ?? 'unknown error', result });
  if (hooks.has('agent_end')) {
    // The final messages of the session (read only when a hook listens).
    const messages = await deps.store.loadMessages(spec.sessionId).catch(() => []);
    void hooks.fire('agent_end', { status, ...(errorText ? { error: errorText } : {}), durationMs: endedAt - startedAt, messages }, hookCtx);
  }
  return result;
}

/** Resolves when `p` settles or after `ms`, whichever is first. */
function waitAtMost(p: Promise<unknown>, ms: number, timers: RunDeps['timers']): Promise<void> {
  return new Promise((resolve) => {
    const t = timers.setTimeout(resolve, ms);
    void p.then(() => {
      timers.clearTimeout(t);
      resolve();
    });
  });
}

/** The run's system prompt per model, assembled once each (the outer loop asks again for a fallback model). */
function systemPrompts(deps: RunDeps): (model: ModelDef) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  const build = (m: ModelDef) => (deps.systemPrompt ? deps.systemPrompt(m) : buildSystemPrompt({ workspace: deps.workspace, model: m, tools: deps.tools, now: deps.now() }));
  return (m) => {
    const key = `${m.provider}/${m.id}`;
    let p = cache.get(key);
    if (!p) cache.set(key, (p = build(m)));
    return p;
  };
}

/** One clear line for the user. Known local errors keep their own message; provider errors are classified (E8). */
export function describeRunError(err: unknown): string {
  if (
    err instanceof Error &&
    ['RunTimeoutError', 'AbortError', 'NoApiKeyError', 'KeychainUnavailableError', 'ModelNotFoundError', 'RunFailedError', 'ProviderCallError', 'ContextWindowTooSmallError', 'BudgetExceededError'].includes(err.name)
  ) {
    return err.message;
  }
  return classifyError(err).message;
}
