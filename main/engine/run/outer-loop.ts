/**
 * E7: the outer loop — one loop around runAttempt. Each failed attempt is classified (E8), the profile's state is
 * recorded (E6 cooldowns, shared across processes), and decideNext picks the next step: rotate to another auth
 * profile, back off or honour retry-after (abortable), compact (the recoverOverflow hand-off), fall back to the next
 * model, or give up with one error naming what was tried. Every step is announced as a `retry` event first.
 *
 * A retry resumes from the transcript as it is: completed tool calls and results stay, the failed call's partial
 * assistant turn stays in the transcript but buildContext never sends it again, and its text is not a payload.
 */
import type { RetryData } from '../../../preload/contract.js';
import type { ModelDef, StreamFn, ThinkingLevel } from '../../providers/types.js';
import type { Tool } from '../../tools/types.js';
import type { Message, RetryNote, Usage } from '../messages.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import type { EngineHooks } from '../attempt/hooks.js';
import type { HookRunner } from '../attempt/hook-runner.js';
import type { SessionStore } from '../../sessions/store.js';
import type { AuthPlan, AuthPool } from '../../auth/pool.js';
import type { AuthProfile } from '../../auth/profiles.js';
import { activeWindow, PROBE_REASONS } from '../../auth/cooldown.js';
import { runAttempt } from '../attempt/attempt.js';
import type { SteerInbox } from '../attempt/steer.js';
import { UsageAccumulator } from '../attempt/usage.js';
import { buildSystemPrompt } from '../attempt/system-prompt.js';
import { classifyError, type ClassifiedError, type FailoverReason } from '../classify.js';
import { checkContextWindow, CONTEXT_MIN, CONTEXT_WARN_BELOW } from '../models.js';

/** E5: the warning for a window under 32 000 tokens (shown with the run's start). */
export function contextWarning(model: ModelDef, window: number): string | undefined {
  if (checkContextWindow(window) !== 'warn') return undefined;
  return `The context window of ${ref(model)} is only ${window} tokens (under ${CONTEXT_WARN_BELOW}): long tasks may not fit.`;
}
import { sleepAbortable, type Timers } from './backoff.js';
import { decideNext, type NextStep } from './failover-decision.js';
import { maxIterations } from './iteration-cap.js';
import type { RecoverOverflow } from './overflow-recovery.js';
import { newRunCompaction, type RunCompaction } from '../attempt/run-compaction.js';
import type { UsageMeter } from './usage-meter.js';
import { MessagingLedger } from '../stream/messaging-dedupe.js';
import type { ReplyPart } from '../stream/payloads.js';
import { allKeysCoolingText, type AllCooling } from '../../../preload/messages/keys.js';
import { failedAfter, runFailedSummary, TRIED_REASON } from '../../../preload/messages/retry.js';

export type AuthSource = Pick<AuthPool, 'plan' | 'key' | 'used' | 'good' | 'failed'>;

export interface LoopDeps {
  store: SessionStore;
  tools: readonly Tool[];
  workspace: string;
  /** The hook runner (E19), or a plain set of handlers. */
  hooks: HookRunner | EngineHooks;
  /** Assembles the system prompt for a model (skills, plugins…); default: buildSystemPrompt with the tools. */
  systemPrompt?: (model: ModelDef) => Promise<string>;
  /** E16: reasoning goes into the payloads too (config agent.verbose). */
  verbose?: boolean;
  /** Offer the `send_message` tool (default true; the gateway turns it off when it is on the deny list). */
  sendMessage?: boolean;
  now: () => number;
  timers: Timers;
  random: () => number;
  auth: AuthSource;
  streamFnFor: (model: ModelDef) => StreamFn;
  idleTimeoutMs: (model: ModelDef) => number;
  /** The window for every budget decision (agent.contextTokens caps the model's own). */
  contextTokens: (model: ModelDef) => number;
  /** Context-overflow recovery (compaction); without it an overflow ends the run with a clear error. */
  recoverOverflow?: RecoverOverflow;
  retryAfterCapMs?: number;
}

export interface LoopSpec {
  runId: string;
  sessionKey: string;
  sessionId: string;
  /** The primary model, then `agent.model.fallbacks` in order. */
  models: readonly ModelDef[];
  thinking: ThinkingLevel;
  headers?: Record<string, string>;
  /** The context for the first attempt (history + this run's user message, already persisted). */
  messages: Message[];
  /** E10: the latest compaction summary; `messages` start at its kept tail (later attempts reload both). */
  summary?: string;
  sinceCompaction?: number;
  /** E10/E18: the run's compaction state (preemptive and overflow compactions, coordination). */
  compaction?: RunCompaction;
  persist: (m: Message) => Promise<void>;
  /** E3 steer: messages injected into the tool loop. */
  steer?: SteerInbox;
  /** E17: bills every model call of the run (tool loop and compaction summaries). */
  meter?: UsageMeter;
  /** E22: send only the last N turns of the history. */
  historyTurns?: number;
}

export interface LoopOutcome {
  ok: boolean;
  /** What the run delivered, in order (E16): replies, `send_message` posts, tool summaries. */
  parts: ReplyPart[];
  /** Texts the messaging tool committed in the run, normalised (final-payload dedupe). */
  sentNormalized: readonly string[];
  /** E17: tokens the conversation takes after the last call that reported any (0: none did). */
  context: number;
  /** Reasoning of the successful model calls (payloads only when verbose). */
  reasoning: string[];
  usage: Usage;
  toolErrors: number;
  attempts: number;
  compactions: number;
  model: ModelDef;
  profileId: string | null;
  /** The failure, when !ok: an Error whose message is the one line for the user (or the raw cause). */
  error?: unknown;
}

interface Tried {
  model: ModelDef;
  profileId: string | null;
  reason: FailoverReason;
  message: string;
  /** A provider call failed (its message is the classified line), rather than a check before any call. */
  provider?: boolean;
}

export class RunFailedError extends Error {
  override name = 'RunFailedError';
}
/** The run's one provider call failed: the message is its classified line (the provider error is the cause). */
export class ProviderCallError extends Error {
  override name = 'ProviderCallError';
}
export class ContextWindowTooSmallError extends Error {
  override name = 'ContextWindowTooSmallError';
}

const ref = (m: ModelDef) => `${m.provider}/${m.id}`;

export async function runOuterLoop(spec: LoopSpec, deps: LoopDeps, emitter: RunEmitter, signal: AbortSignal): Promise<LoopOutcome> {
  const usage = new UsageAccumulator();
  let lastContext = 0;
  const parts: ReplyPart[] = [];
  const ledger = new MessagingLedger(); // E16: the run's, so a post counts across retries
  const reasoning: string[] = [];
  let toolErrors = 0;
  let attempts = 0;
  let compactions = 0;
  let turns = 0;
  let budget: number | undefined;
  const tried: Tried[] = [];
  let lastError: unknown;
  let model = spec.models[0]!;
  let profileId: string | null = null;
  const revisions = { count: 0 }; // before_agent_finalize: at most MAX_FINALIZE_REVISIONS per run, not per attempt
  const runCompaction = spec.compaction ?? newRunCompaction(); // E10/E18: the overflow steps and their one limit

  const outcome = (error?: unknown): LoopOutcome => ({
    ok: error === undefined,
    parts,
    sentNormalized: ledger.sentNormalized(),
    context: lastContext,
    reasoning,
    usage: usage.calls > 0 ? usage.result() : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    toolErrors,
    attempts,
    compactions,
    model,
    profileId,
    ...(error !== undefined ? { error } : {}),
  });
  // Retries announced since the last assistant message written go on the next one (a reload shows their lines).
  let announced: RetryNote[] = [];
  const persist = (m: Message): Promise<void> => {
    if (m.role !== 'assistant' || announced.length === 0) return spec.persist(m);
    const retries = announced;
    announced = [];
    return spec.persist({ ...m, retries });
  };
  const announce = (failed: Tried, next: Exclude<NextStep, { action: 'give_up' }>, cooldownUntil?: number, discardTurn?: number) => {
    const { profileId: nextProfile, ...rest } = next as NextStep & { profileId?: string | null };
    const nextDto: RetryData['next'] =
      next.action === 'rotate'
        ? { action: 'rotate', profileId: next.profileId }
        : ({ ...rest, ...(nextProfile ? { profileId: nextProfile } : {}) } as RetryData['next']);
    const data: RetryData = {
      attempt: attempts,
      reason: failed.reason,
      message: failed.message,
      provider: failed.model.provider,
      model: failed.model.id,
      profileId: failed.profileId,
      ...(discardTurn !== undefined ? { discardTurn } : {}),
      ...(cooldownUntil !== undefined ? { cooldownUntil } : {}),
      next: nextDto,
    };
    emitter.emit('retry', data);
    const { discardTurn: _discarded, ...note } = data;
    announced.push(note);
  };
  // Every key of the model's provider cooling down when the run gives up (two keys or more): the error says which,
  // why and when the first is ready again, not only the last call's error.
  let coolingAtEnd: AllCooling | undefined;
  const giveUp = (why: string | undefined) => outcome(summarise(tried, lastError, why, attempts, coolingAtEnd));

  for (let m = 0; m < spec.models.length; m++) {
    model = spec.models[m]!;
    const nextModel = spec.models[m + 1];
    const fallbackStep = nextModel ? ({ action: 'fallback', provider: nextModel.provider, model: nextModel.id } as const) : undefined;
    const skipModel = (t: Tried, err: unknown): boolean => {
      tried.push(t);
      lastError = err;
      if (!fallbackStep) return false;
      announce(t, fallbackStep);
      return true;
    };

    // E5 context guard.
    const window = deps.contextTokens(model);
    const guard = checkContextWindow(window);
    if (guard === 'refuse') {
      const err = new ContextWindowTooSmallError(
        `The context window of ${ref(model)} is ${window} tokens, below the ${CONTEXT_MIN} minimum: raise agent.contextTokens or pick another model.`,
      );
      if (skipModel({ model, profileId: null, reason: 'format', message: err.message }, err)) continue;
      return giveUp('exhausted');
    }
    let plan: AuthPlan;
    try {
      plan = await deps.auth.plan(model);
    } catch (err) {
      if (skipModel({ model, profileId: null, reason: 'auth', message: (err as Error).message }, err)) continue;
      return giveUp('exhausted');
    }
    const profiles: AuthProfile[] = plan.kind === 'profiles' ? [...plan.ready, ...plan.cooling] : [];
    budget ??= maxIterations(profiles.length);
    let profile: AuthProfile | null;
    let probeUsed = false;
    if (plan.kind === 'keyless') profile = null;
    else if (plan.ready[0]) profile = plan.ready[0];
    else if (plan.cooling.every((p) => PROBE_REASONS.has(plan.windows[p.id]?.reason ?? 'unknown'))) {
      profile = plan.cooling[0]!; // every profile cools for a probe reason (rate limit, overload, billing): one probe
      probeUsed = true;
    } else {
      const until = Math.min(...plan.cooling.map((p) => plan.windows[p.id]?.until ?? 0));
      const msg = allKeysCoolingText({
        provider: model.provider,
        keys: plan.cooling.map((p) => ({ profileId: p.id, reason: plan.windows[p.id]?.reason ?? 'unknown' })),
        readyInMs: until - deps.now(),
      });
      if (skipModel({ model, profileId: null, reason: plan.windows[plan.cooling[0]!.id]?.reason ?? 'auth', message: msg }, new RunFailedError(msg))) continue;
      return giveUp('exhausted');
    }
    const triedHere = new Set<string>();
    let backoffs = 0;
    const systemPrompt = deps.systemPrompt
      ? await deps.systemPrompt(model)
      : await buildSystemPrompt({ workspace: deps.workspace, model, tools: deps.tools, now: deps.now() });

    for (;;) {
      if (signal.aborted) return outcome(signal.reason);
      profileId = profile?.id ?? null;
      let apiKey: string | null = plan.kind === 'keyless' ? plan.apiKey : null;
      // "Last used" is written while the request goes out (it only orders keys for later runs); it lands before
      // this attempt's outcome is recorded.
      let usedWrite: Promise<unknown> | undefined;
      if (spec.meter) spec.meter.profileId = profile?.id ?? null;
      if (profile) {
        triedHere.add(profile.id);
        apiKey = await deps.auth.key(profile).catch(() => null);
        usedWrite = deps.auth.used(profile.id).catch(() => undefined);
      }
      const context =
        attempts === 0
          ? { messages: spec.messages, summary: spec.summary, sinceCompaction: spec.sinceCompaction }
          : await deps.store.loadContext(spec.sessionId);
      attempts++;
      const firstTurn = turns;
      const result = apiKey
        ? await runAttempt({
            runId: spec.runId,
            sessionKey: spec.sessionKey,
            model,
            apiKey,
            profileId,
            streamFn: deps.streamFnFor(model),
            systemPrompt,
            messages: context.messages,
            summary: context.summary,
            sinceCompaction: context.sinceCompaction,
            windowTokens: window,
            persistCompaction: (record) => deps.store.appendCompaction(spec.sessionId, record),
            shortenToolResults: (plan) => deps.store.shortenToolResults(spec.sessionId, plan),
            compaction: runCompaction,
            tools: deps.tools,
            workspace: deps.workspace,
            thinking: model.reasoning ? spec.thinking : 'off',
            signal,
            idleTimeoutMs: deps.idleTimeoutMs(model),
            emitter,
            hooks: deps.hooks,
            now: deps.now,
            persist,
            headers: spec.headers,
            turnOffset: turns,
            steer: spec.steer,
            revisions,
            ...(deps.sendMessage === false ? { sendMessage: false } : {}),
            ...(spec.meter ? { meter: spec.meter } : {}),
            ...(spec.historyTurns ? { historyTurns: spec.historyTurns } : {}),
            ledger,
          })
        : undefined;
      await usedWrite;
      if (result) {
        turns += result.turns;
        usage.add(result.usage);
        if (result.context > 0) lastContext = result.context;
        parts.push(...result.parts);
        reasoning.push(...result.reasoning);
        toolErrors += result.toolErrors;
        if (result.kind === 'ok') {
          if (profile) await deps.auth.good(profile.id, ref(model));
          return outcome();
        }
        // E10: stored tool results were shortened before the send: a fresh attempt from the shortened session (the
        // same profile; not a failure). Bounded like any attempt by the iteration cap.
        if (result.kind === 'restart' && attempts < budget) continue;
      }
      if (signal.aborted) return outcome(signal.reason);
      const rawError = result ? result.error : new RunFailedError(`The key of ${profileId} is no longer available.`);
      // X4: a budget stop is no provider failure: no retry, no other key or model, no cooldown for the key.
      if ((rawError as Error | undefined)?.name === 'BudgetExceededError') return outcome(rawError);
      const classified: ClassifiedError = classifyError(rawError, deps.now(), model.provider, profileId);
      const failed: Tried = { model, profileId, reason: classified.reason, message: classified.message, provider: true };
      tried.push(failed);
      lastError = rawError;

      let cooldownUntil: number | undefined;
      let fresh: AuthPlan | undefined;
      if (profile) {
        const st = await deps.auth.failed(profile.id, classified, apiKey ?? undefined, ref(model));
        cooldownUntil = activeWindow(st, deps.now(), ref(model))?.until;
        fresh = await deps.auth.plan(model).catch(() => undefined);
      }
      const freshProfiles = fresh?.kind === 'profiles' ? fresh : undefined;
      coolingAtEnd =
        freshProfiles && freshProfiles.ready.length === 0 && freshProfiles.cooling.length >= 2
          ? {
              provider: model.provider,
              keys: freshProfiles.cooling.map((p) => ({ profileId: p.id, reason: freshProfiles.windows[p.id]?.reason ?? 'unknown' })),
              readyInMs: Math.min(...freshProfiles.cooling.map((p) => freshProfiles.windows[p.id]?.until ?? deps.now())) - deps.now(),
            }
          : undefined;
      const nextProfile = freshProfiles?.ready.find((p) => !triedHere.has(p.id));
      let probe: AuthProfile | null | undefined;
      if (!probeUsed && !nextProfile) {
        if (plan.kind === 'keyless') probe = null;
        else if (freshProfiles?.ready[0]) probe = freshProfiles.ready[0];
        else if (freshProfiles && freshProfiles.cooling.every((p) => PROBE_REASONS.has(freshProfiles.windows[p.id]?.reason ?? 'unknown'))) {
          probe = freshProfiles.cooling[0];
        }
      }
      const next = decideNext({
        reason: classified.reason,
        retryAfterMs: classified.retryAfterMs,
        attempts,
        maxIterations: budget,
        currentProfile: profileId,
        nextProfile: nextProfile?.id,
        probeProfile: probe === undefined ? undefined : (probe?.id ?? null),
        backoffs,
        nextModel: nextModel ? { provider: nextModel.provider, model: nextModel.id } : undefined,
        canCompact: deps.recoverOverflow !== undefined && runCompaction.overflow.canRecover,
        random: deps.random,
        retryAfterCapMs: deps.retryAfterCapMs,
      });
      if (next.action === 'give_up') return giveUp(next.why);
      const discardTurn = result && result.turns > 0 ? firstTurn + result.turns - 1 : undefined;
      announce(failed, next, cooldownUntil, discardTurn);

      const byId = (id: string | null): AuthProfile | null =>
        id === null ? null : ([...(freshProfiles?.ready ?? []), ...(freshProfiles?.cooling ?? []), ...profiles].find((p) => p.id === id) ?? profile);
      if (next.action === 'fallback') break;
      if (next.action === 'rotate') {
        profile = byId(next.profileId);
        continue;
      }
      if (next.action === 'compact') {
        compactions++;
        const r = await deps.recoverOverflow!({
          runId: spec.runId,
          sessionKey: spec.sessionKey,
          sessionId: spec.sessionId,
          model,
          contextTokens: window,
          error: classified,
          signal,
          emitter,
          ...(apiKey ? { apiKey } : {}),
          systemPrompt,
          headers: spec.headers,
          compaction: runCompaction,
          ...(spec.meter ? { meter: spec.meter } : {}),
          streamFnFor: deps.streamFnFor,
        });
        if (!r.compacted) {
          lastError = new RunFailedError(`${classified.message} — compaction could not help${r.reason ? `: ${r.reason}` : ''}.`);
          return outcome(lastError);
        }
        continue;
      }
      // backoff / wait: sleep (abortable), then retry on the chosen profile.
      try {
        await sleepAbortable(next.waitMs, signal, deps.timers);
      } catch {
        return outcome(signal.reason);
      }
      backoffs++;
      const chosen = byId(next.profileId);
      if (chosen && probe && chosen.id === probe.id) probeUsed = true;
      if (plan.kind === 'keyless' && classified.reason === 'rate_limit') probeUsed = true;
      profile = chosen;
    }
  }
  return giveUp('exhausted');
}


/** One line for a failed run: the last error alone when one thing was tried, else what was tried and why. */
function summarise(tried: readonly Tried[], lastError: unknown, why: string | undefined, attempts: number, cooling?: AllCooling): unknown {
  const distinct = new Set(tried.map((t) => `${ref(t.model)} ${t.profileId}`));
  if (why === 'aborted') return lastError;
  const last = tried.at(-1);
  if (cooling && why !== 'retry_limit' && last?.provider && new Set(tried.map((t) => ref(t.model))).size === 1) {
    return new RunFailedError(`${allKeysCoolingText(cooling)} Last error: ${last.message}`);
  }
  if (why !== 'retry_limit' && distinct.size <= 1 && tried.length <= 1) {
    // One provider call failed: its line as classified with the provider and key it used (not re-classified
    // later without them).
    const only = tried[0];
    return only?.provider ? new ProviderCallError(only.message, { cause: lastError }) : lastError;
  }
  const byModel = new Map<string, string[]>();
  for (const t of tried) {
    const list = byModel.get(ref(t.model)) ?? [];
    const item = `${t.profileId ?? 'no key'} (${TRIED_REASON[t.reason]})`;
    if (list.at(-1) !== item) list.push(item);
    byModel.set(ref(t.model), list);
  }
  const what = [...byModel].map(([m, items]) => `${m}: ${items.join(', ')}`).join('; ');
  return new RunFailedError(runFailedSummary(failedAfter(attempts, why === 'retry_limit'), what, last?.message ?? 'unknown error'));
}
