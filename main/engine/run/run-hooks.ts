/**
 * The run-level hooks (E19) in one place: before_model_resolve (with legacy before_agent_start) picks the model
 * before the run starts; message_sending / message_sent see every payload the run delivers; before/after_compaction
 * follow the `compaction` events of every run (preemptive, overflow and manual compaction alike).
 */
import type { AgentEvent, CompactionData } from '../../../preload/contract.js';
import type { ModelDef } from '../../providers/types.js';
import type { Payload } from '../stream/payloads.js';
import type { HookContext } from '../attempt/hooks.js';
import type { HookRunner } from '../attempt/hook-runner.js';

/**
 * The model after the hooks: an override names a provider and/or model id (the other part stays). An override that
 * does not resolve is logged and ignored — a plugin cannot break the run.
 */
export async function resolveModelWithHooks(
  hooks: HookRunner,
  event: { prompt: string; model: ModelDef },
  ctx: HookContext,
  resolve: (ref: string) => ModelDef,
  log: (line: string) => void = (line) => console.error(`[agentdesk] ${line}`),
): Promise<ModelDef> {
  if (!hooks.has('before_model_resolve') && !hooks.has('before_agent_start')) return event.model;
  const o = await hooks.resolveModel({ prompt: event.prompt, provider: event.model.provider, model: event.model.id }, ctx);
  if (!o.providerOverride && !o.modelOverride) return event.model;
  const ref = `${o.providerOverride ?? event.model.provider}/${o.modelOverride ?? event.model.id}`;
  try {
    return resolve(ref);
  } catch (err) {
    log(`a hook asked for model ${ref}, which is not available (${(err as Error).message}); keeping ${event.model.provider}/${event.model.id}`);
    return event.model;
  }
}

/** message_sending may rewrite or cancel each payload; message_sent is told about each one delivered. */
export async function deliverPayloads(hooks: HookRunner, payloads: Payload[], ctx: HookContext): Promise<Payload[]> {
  if (!hooks.has('message_sending') && !hooks.has('message_sent')) return payloads;
  const out: Payload[] = [];
  for (const p of payloads) {
    const isError = p.isError === true;
    const r = await hooks.messageSending({ content: p.text, isError }, ctx);
    if (r.cancel) continue;
    out.push({ ...p, text: r.content });
    void hooks.fire('message_sent', { content: r.content, isError }, ctx);
  }
  return out;
}

/** before_compaction / after_compaction from one `compaction` event (other events are ignored). */
export function fireCompactionHooks(hooks: HookRunner, event: AgentEvent): void {
  if (event.stream !== 'compaction') return;
  const d = event.data as CompactionData;
  const ctx: HookContext = { runId: event.runId, sessionKey: event.sessionKey };
  if (d.phase === 'start') void hooks.fire('before_compaction', { ...(d.reason ? { reason: d.reason } : {}) }, ctx);
  else
    void hooks.fire(
      'after_compaction',
      { ...(d.reason ? { reason: d.reason } : {}), tokensBefore: d.tokensBefore, tokensAfter: d.tokensAfter, ...(d.error ? { error: d.error } : {}) },
      ctx,
    );
}
