/**
 * The one hook runner (E19). Every handler — from the app or a plugin — runs isolated and time-boxed: a handler
 * that throws is logged and skipped, one that hangs is abandoned after its budget (logged), so no hook can fail or
 * stall a run (a hanging before_tool_call used to hold the run until the run timeout). Clock and timers are
 * injected so the budgets are testable exactly.
 *
 * Merge rules: handlers run in registration order (higher `priority` first).
 * - before_model_resolve: the first override set wins; legacy before_agent_start only fills what it left unset.
 * - before_prompt_build: the last systemPrompt wins; context strings are joined in order.
 * - before_tool_call: params chain (each handler sees the previous one's); `block: true` is terminal.
 * - message_sending: content chains; `cancel: true` is terminal.
 * - before_agent_finalize: any `finalize` overrides every `revise`.
 * - tool_result_persist: synchronous, chained; a handler that returns a promise is ignored (logged).
 * - everything else is fire-and-forget (`fire`): parallel, time-boxed, never awaited by the run.
 */
import type { ApprovalGate } from './approvals.js';
import type { CheckpointGate } from './checkpoint-step.js';
import { nodeTimers, type Timers } from '../timers.js';
import type { ToolResultMessage } from '../messages.js';
import {
  logHookFailure,
  type BeforeToolCallResult,
  type EngineHooks,
  type FinalizeResult,
  type HookContext,
  type HookHandlers,
  type HookName,
  type MessageSendingResult,
  type ModelResolveResult,
  type PromptBuildResult,
  type ToolCallInfo,
} from './hooks.js';

export type HookTimers = Timers;

/** Budget of an awaited hook call. */
export const HOOK_TIMEOUT_MS = 10_000;
/** before_agent_finalize gets longer (inventory §16). */
export const FINALIZE_HOOK_TIMEOUT_MS = 15_000;
/** Fire-and-forget hooks (inventory §16). */
export const VOID_HOOK_TIMEOUT_MS = 2_000;

interface Registration<K extends HookName = HookName> {
  source: string;
  priority: number;
  handler: HookHandlers[K];
}

type Outcome<T> = { ok: true; value: T } | { ok: false };

export class HookRunner {
  /**
   * T3: the approval gate the tool lifecycle asks before a tool runs (approvals.ts). Kept apart from the hooks:
   * it waits for a person (bounded by the run's signal and timeout), so it must not be time-boxed like them.
   */
  approvals?: ApprovalGate;
  /** X2: records the workspace before a turn's first mutating tool call (main/checkpoints/gate.ts); never throws. */
  checkpoint?: CheckpointGate;
  private readonly regs = new Map<HookName, Registration[]>();
  private readonly timers: HookTimers;
  private readonly log: (hook: string, err: unknown, source: string) => void;
  private readonly budgets: Partial<Record<HookName, number>>;

  constructor(
    opts: {
      timers?: HookTimers;
      log?: (hook: string, err: unknown, source: string) => void;
      budgets?: Partial<Record<HookName, number>>;
    } = {},
  ) {
    this.timers = opts.timers ?? nodeTimers;
    this.log = opts.log ?? logHookFailure;
    this.budgets = opts.budgets ?? {};
  }

  /** A runner holding one set of handlers (the app's own, or none). */
  static of(hooks: EngineHooks = {}, source = 'app'): HookRunner {
    const runner = new HookRunner();
    runner.register(source, hooks);
    return runner;
  }

  register(source: string, hooks: EngineHooks, priority = 0): void {
    for (const [name, handler] of Object.entries(hooks) as [HookName, HookHandlers[HookName]][]) {
      if (typeof handler !== 'function') continue;
      const list = this.regs.get(name) ?? [];
      list.push({ source, priority, handler });
      list.sort((a, b) => b.priority - a.priority);
      this.regs.set(name, list);
    }
  }

  has(name: HookName): boolean {
    return (this.regs.get(name)?.length ?? 0) > 0;
  }

  private list<K extends HookName>(name: K): Registration<K>[] {
    return (this.regs.get(name) ?? []) as Registration<K>[];
  }

  private budget(name: HookName): number {
    return (
      this.budgets[name] ??
      (name === 'before_agent_finalize' ? FINALIZE_HOOK_TIMEOUT_MS : ASYNC_VOID.has(name) ? VOID_HOOK_TIMEOUT_MS : HOOK_TIMEOUT_MS)
    );
  }

  /** Calls one handler, isolated and time-boxed. */
  private call<K extends HookName>(name: K, reg: Registration<K>, args: Parameters<HookHandlers[K]>): Promise<Outcome<Awaited<ReturnType<HookHandlers[K]>>>> {
    const ms = this.budget(name);
    return new Promise((resolve) => {
      let settled = false;
      const timer = this.timers.setTimeout(() => {
        if (settled) return;
        settled = true;
        this.log(name, new Error(`timed out after ${ms} ms; the run goes on without it`), reg.source);
        resolve({ ok: false });
      }, ms);
      Promise.resolve()
        .then(() => (reg.handler as (...a: unknown[]) => unknown)(...args))
        .then(
          (value) => {
            if (settled) return;
            settled = true;
            this.timers.clearTimeout(timer);
            resolve({ ok: true, value: value as Awaited<ReturnType<HookHandlers[K]>> });
          },
          (err: unknown) => {
            if (settled) return;
            settled = true;
            this.timers.clearTimeout(timer);
            this.log(name, err, reg.source);
            resolve({ ok: false });
          },
        );
    });
  }

  /** Fire-and-forget: every handler in parallel. The returned promise is for tests; the engine never awaits it. */
  fire<K extends FireHook>(name: K, ...args: Parameters<HookHandlers[K]>): Promise<void> {
    return Promise.all(this.list(name).map((reg) => this.call(name, reg, args))).then(() => undefined);
  }

  async resolveModel(event: { prompt: string; provider: string; model: string }, ctx: HookContext): Promise<ModelResolveResult> {
    const out: ModelResolveResult = {};
    const take = (r: ModelResolveResult | void) => {
      if (!r) return;
      out.providerOverride ??= r.providerOverride || undefined;
      out.modelOverride ??= r.modelOverride || undefined;
    };
    for (const reg of this.list('before_model_resolve')) {
      const r = await this.call('before_model_resolve', reg, [event, ctx]);
      if (r.ok) take(r.value);
    }
    // Legacy hook: only fills what the new hook left unset (the new one wins).
    for (const reg of this.list('before_agent_start')) {
      const r = await this.call('before_agent_start', reg, [{ prompt: event.prompt }, ctx]);
      if (r.ok) take(r.value);
    }
    return out;
  }

  async buildPrompt(event: Parameters<HookHandlers['before_prompt_build']>[0], ctx: HookContext): Promise<PromptBuildResult> {
    const out: PromptBuildResult = {};
    const join = (a: string | undefined, b: string | undefined) => (a && b ? `${a}\n\n${b}` : (a ?? b));
    for (const reg of this.list('before_prompt_build')) {
      const r = await this.call('before_prompt_build', reg, [event, ctx]);
      if (!r.ok || !r.value) continue;
      const v = r.value;
      if (typeof v.systemPrompt === 'string') out.systemPrompt = v.systemPrompt;
      out.prependContext = join(out.prependContext, v.prependContext);
      out.prependSystemContext = join(out.prependSystemContext, v.prependSystemContext);
      out.appendSystemContext = join(out.appendSystemContext, v.appendSystemContext);
    }
    return out;
  }

  async beforeToolCall(info: ToolCallInfo): Promise<BeforeToolCallResult & { params: Record<string, unknown> }> {
    let params = info.params;
    for (const reg of this.list('before_tool_call')) {
      const r = await this.call('before_tool_call', reg, [{ ...info, params }]);
      if (!r.ok || !r.value) continue;
      if (r.value.block) return { params, block: true, ...(r.value.reason ? { reason: r.value.reason } : {}) };
      if (r.value.params) params = r.value.params;
    }
    return { params };
  }

  async finalize(event: { finalText: string; revisions: number }, ctx: HookContext): Promise<FinalizeResult | undefined> {
    let revise: FinalizeResult | undefined;
    for (const reg of this.list('before_agent_finalize')) {
      const r = await this.call('before_agent_finalize', reg, [event, ctx]);
      if (!r.ok || !r.value) continue;
      if (r.value.action === 'finalize') return r.value;
      if (r.value.action === 'revise' && !revise) revise = r.value;
    }
    return revise;
  }

  async messageSending(event: { content: string; isError: boolean }, ctx: HookContext): Promise<{ content: string; cancel: boolean }> {
    let content = event.content;
    for (const reg of this.list('message_sending')) {
      const r = await this.call('message_sending', reg, [{ ...event, content }, ctx]);
      if (!r.ok || !r.value) continue;
      const v: MessageSendingResult = r.value;
      if (v.cancel) return { content, cancel: true };
      if (typeof v.content === 'string') content = v.content;
    }
    return { content, cancel: false };
  }

  async bootstrapFiles<T extends { name: string; content: string }>(files: T[], ctx: HookContext): Promise<{ name: string; content: string }[]> {
    let out: { name: string; content: string }[] = files;
    for (const reg of this.list('agent:bootstrap')) {
      const r = await this.call('agent:bootstrap', reg, [{ files: out.map((f) => ({ ...f })) }, ctx]);
      if (r.ok && r.value && Array.isArray(r.value.files)) out = r.value.files;
    }
    return out;
  }

  /** tool_result_persist: synchronous by contract, so the transcript write never waits on a plugin. */
  persistToolResult(message: ToolResultMessage, ctx: HookContext): ToolResultMessage {
    let current = message;
    for (const reg of this.list('tool_result_persist')) {
      try {
        const r = reg.handler({ message: current }, ctx) as unknown;
        if (r instanceof Promise || (typeof r === 'object' && r !== null && typeof (r as { then?: unknown }).then === 'function')) {
          void (r as Promise<unknown>).catch(() => undefined);
          this.log('tool_result_persist', new Error('returned a promise; this hook is synchronous, its result is ignored'), reg.source);
          continue;
        }
        const next = (r as { message?: ToolResultMessage } | undefined)?.message;
        if (next && next.role === 'toolResult' && next.toolCallId === message.toolCallId) current = next;
      } catch (err) {
        this.log('tool_result_persist', err, reg.source);
      }
    }
    return current;
  }
}

const FIRE_HOOKS = [
  'agent_end',
  'before_compaction',
  'after_compaction',
  'after_tool_call',
  'message_received',
  'message_sent',
  'session_start',
  'session_end',
  'gateway_start',
  'gateway_stop',
  'command:new',
  'command:reset',
  'command:stop',
  'command:compact',
  'command:model',
  'command:think',
  'command:verbose',
  'command:status',
] as const satisfies readonly HookName[];

/** Hooks that are fire-and-forget. */
export type FireHook = (typeof FIRE_HOOKS)[number];

const ASYNC_VOID = new Set<HookName>(FIRE_HOOKS);

/** A runner for what a caller passed: a runner as is, or a plain set of handlers (the app's own). */
export function asHookRunner(hooks: HookRunner | EngineHooks | undefined): HookRunner {
  return hooks instanceof HookRunner ? hooks : HookRunner.of(hooks ?? {});
}
