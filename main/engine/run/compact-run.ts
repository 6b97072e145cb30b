/**
 * Manual `/compact` (E10, E22): a run that only compacts the session — the model summarises the older turns, the
 * recent ones stay verbatim, a compaction record is appended — with the same lifecycle and `compaction` events as
 * any run, so the CLI (`agentdesk agent --message /compact`), the gateway method `sessions.compact` and the UI all
 * see it the same way. It queues in the session lane like a message, so it never races a run of that session.
 */
import type { RunResult, RunStatus } from '../../../preload/contract.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import { emptyUsage } from '../messages.js';
import { AttemptContext } from '../attempt/context-fit.js';
import { buildContext } from '../attempt/attempt.js';
import { missingResultTextFor } from '../attempt/pairing.js';
import { buildSystemPrompt } from '../attempt/system-prompt.js';
import { toolSpecsOf } from '../../tools/index.js';
import { newRunCompaction } from '../attempt/run-compaction.js';
import { describeRunError, RunTimeoutError, type RunDeps, type RunSpec } from './agent-run.js';
import { RunFailedError } from './outer-loop.js';
import { UsageMeter } from './usage-meter.js';

export const COMPACT_COMMAND = '/compact';

export const isCompactCommand = (message: string): boolean => message.trim().toLowerCase() === COMPACT_COMMAND;

export async function executeCompactRun(spec: RunSpec, deps: RunDeps, emitter: RunEmitter, external: AbortSignal): Promise<RunResult> {
  const { model } = spec;
  emitter.emit('lifecycle', { phase: 'start', startedAt: deps.now(), provider: model.provider, model: model.id, ...(model.api === 'demo' ? { demo: true } : {}) });
  const controller = new AbortController();
  const onAbort = () => controller.abort(external.reason);
  if (external.aborted) onAbort();
  else external.addEventListener('abort', onAbort, { once: true });
  const timer = deps.timers.setTimeout(
    () => controller.abort(new RunTimeoutError(`The compaction timed out after ${Math.round(spec.timeoutMs / 1000)} s.`)),
    spec.timeoutMs,
  );
  const compaction = spec.compaction ?? newRunCompaction();
  const meter = new UsageMeter((d) => emitter.emit('usage', d)); // E17: the summary calls are billed too
  let profileId: string | null = null;
  let text = '';
  let compactions = 0;
  let context: number | undefined;
  let error: unknown;
  try {
    const history = await deps.store.loadContext(spec.sessionId);
    const plan = await deps.auth.plan(model);
    const profile = plan.kind === 'profiles' ? (plan.ready[0] ?? plan.cooling[0]) : undefined;
    profileId = profile?.id ?? null;
    meter.profileId = profileId;
    const apiKey = plan.kind === 'keyless' ? plan.apiKey : profile ? await deps.auth.key(profile) : null;
    if (!apiKey) throw new RunFailedError(`No API key for ${model.provider} to write the summary with.`);
    const systemPrompt = await buildSystemPrompt({ workspace: deps.workspace, model, tools: deps.tools, now: deps.now() });
    const fit = new AttemptContext(
      {
        windowTokens: deps.contextTokens(model),
        systemPrompt,
        tools: toolSpecsOf(deps.tools),
        emitter,
        summary: { streamFn: deps.streamFnFor(model), model, apiKey, idleTimeoutMs: deps.idleTimeoutMs(model), now: deps.now, headers: spec.headers, meter },
        signal: controller.signal,
        coordinator: compaction.coordinator,
        onCompacted: () => void compaction.compactions++,
        persistCompaction: (record) => deps.store.appendCompaction(spec.sessionId, record),
        prepare: (ms) => buildContext(ms, { missingResultText: missingResultTextFor(model.api) }),
        now: deps.now,
      },
      history,
    );
    const outcome = await fit.compact('manual', { force: true });
    if (outcome.compacted) {
      compactions = 1;
      context = outcome.tokensAfter;
      text = `Compacted the conversation: about ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens.`;
    } else {
      text = outcome.reason === 'not_smaller'
        ? 'Nothing to compact: a summary would not make this conversation smaller.'
        : 'Nothing to compact yet: the conversation is still short.';
    }
  } catch (err) {
    error = err;
  } finally {
    deps.timers.clearTimeout(timer);
    external.removeEventListener('abort', onAbort);
    compaction.coordinator.unsubscribe();
  }
  const reason = controller.signal.aborted ? controller.signal.reason : undefined;
  const status: RunStatus = error === undefined ? 'ok' : reason instanceof RunTimeoutError ? 'timeout' : 'error';
  const errorText = error === undefined ? undefined : `Compaction failed: ${describeRunError(reason ?? error)}`;
  const billed = meter.billing;
  try {
    if (billed.calls > 0 || context) await deps.store.update(spec.sessionKey, { addBilling: billed, ...(context ? { context } : {}) });
  } catch (err) {
    console.error(`[agentdesk] could not update the session index: ${(err as Error).message}`);
  }
  const result: RunResult = {
    runId: spec.runId,
    status,
    payloads: errorText ? [{ text: errorText, isError: true }] : [{ text }],
    usage: emptyUsage(),
    meta: {
      provider: model.provider,
      model: model.id,
      profileId,
      attempts: 1,
      compactions,
      ...(errorText ? { error: errorText } : {}),
      usage: billed,
      ...(context ? { context } : {}),
    },
  };
  const endedAt = deps.now();
  if (status === 'ok') emitter.emit('lifecycle', { phase: 'end', endedAt, result });
  else emitter.emit('lifecycle', { phase: 'error', endedAt, error: errorText ?? 'unknown error', result });
  return result;
}
