/**
 * One attempt (E9 core): stream a model call, run its tool calls through the lifecycle wrapper (E12), append the
 * results, and repeat until the model stops. Every message is persisted as soon as it is complete, so a run that
 * fails part-way leaves a valid transcript behind.
 */
import type { AssistantMessage, Message, ToolResultMessage, Usage } from '../messages.js';
import { emptyUsage, toolCallsOf } from '../messages.js';
import type { ModelDef, ProviderEvent, StreamFn, StreamRequest, ThinkingLevel, ToolSpec } from '../../providers/types.js';
import type { Tool } from '../../tools/types.js';
import type { RunEmitter } from '../stream/run-emitter.js';
import { asHookRunner, type HookRunner } from './hook-runner.js';
import type { EngineHooks } from './hooks.js';
import { revisionRequest } from './finalize.js';
import { CallSubscriber, mayCloseThinkWithoutOpener } from '../stream/call-subscriber.js';
import { streamMapper } from '../stream/wrappers/index.js';
import { createMessaging } from './send-message.js';
import { runToolCall } from './tool-lifecycle.js';
import { missingResultTextFor, repairToolPairing, type RepairToolPairingOptions } from './pairing.js';
import { UsageAccumulator } from './usage.js';
import { annotateUnanswered } from './unanswered.js';
import { drainSteer, skipForSteer, type SteerInbox } from './steer.js';
import { AttemptContext, AttemptRestart, type CompactionRecordInput, type ContextDeps } from './context-fit.js';
import { newRunCompaction, type RunCompaction } from './run-compaction.js';
import { abortError } from '../abort.js';
import { withTurnContext } from './prompt-build.js';
import { limitHistoryTurns } from './history-limit.js';
import { toolSummary, type ReplyPart } from '../stream/payloads.js';
import type { MessagingLedger } from '../stream/messaging-dedupe.js';
import type { UsageMeter } from '../run/usage-meter.js';
import { modelCallStarts } from './checkpoint-step.js';

/** A tool loop longer than this is a runaway model; the attempt stops with an error. */
export const MAX_TOOL_ROUNDS = 50;

export interface AttemptParams {
  runId: string;
  sessionKey: string;
  model: ModelDef;
  apiKey: string;
  /** The key profile `apiKey` belongs to (recorded on a failed call's message). */
  profileId?: string | null;
  streamFn: StreamFn;
  systemPrompt: string;
  /** The context so far, ending with this run's user message (already persisted). */
  messages: Message[];
  tools: readonly Tool[];
  workspace: string;
  thinking: ThinkingLevel;
  signal: AbortSignal;
  idleTimeoutMs: number;
  emitter: RunEmitter;
  /** The hook runner (E19); a plain set of handlers is wrapped in one. */
  hooks: HookRunner | EngineHooks;
  now: () => number;
  /** Appends one message to the session transcript (serialised by the session write lock, E13). */
  persist: (message: Message) => Promise<void>;
  headers?: Record<string, string>;
  maxToolRounds?: number;
  /** Turn index of this attempt's first model call (the outer loop numbers turns across attempts). */
  turnOffset?: number;
  /** E3 steer: messages injected at the next tool boundary (steer.ts). */
  steer?: SteerInbox;
  /** Ids for tool calls that arrive without one or are promoted from text (injectable for tests). */
  newToolCallId?: () => string;
  /** E10: the window every budget decision uses (the model's, capped by agent.contextTokens). */
  windowTokens?: number;
  /** The session's latest compaction summary; `messages` then start at its kept tail. */
  summary?: string;
  /** Index in `messages` of the first message written after the latest compaction. */
  sinceCompaction?: number;
  /** Appends a compaction record to the transcript (same write lock as `persist`). */
  persistCompaction?: (record: CompactionRecordInput) => Promise<void>;
  /** E10: shortens stored tool results under the session's write lock (the truncate route). */
  shortenToolResults?: ContextDeps['shortenToolResults'];
  /** Compaction state of the run (E18 coordination, overflow steps, compaction count), shared by its attempts. */
  compaction?: RunCompaction;
  /** Offer the `send_message` tool (default true; false when it is on the deny list). */
  sendMessage?: boolean;
  /** E17: bills every model call of the attempt (its tool-loop calls and any compaction summary). */
  meter?: UsageMeter;
  /** E22: send only the last N turns of the history (the session's historyTurns, else agent.historyTurns). */
  historyTurns?: number;
  /** E16: the run's messaging ledger (posts committed in earlier attempts count for dedupe too). */
  ledger?: MessagingLedger;
  /** before_agent_finalize revisions asked for so far in the run (shared by its attempts: the cap is per run). */
  revisions?: { count: number };
}

export interface AttemptResult {
  /** `restart`: stored tool results were shortened before the send; the outer loop starts a fresh attempt. */
  kind: 'ok' | 'error' | 'restart';
  /**
   * What the attempt delivered, in order (E16): the visible text of each successful assistant message (a failed
   * call's partial text is not), `send_message` posts, and a summary of each tool call.
   */
  parts: ReplyPart[];
  /** Reasoning (native thinking and think tags) of each successful call, in order (E16: payloads when verbose). */
  reasoning: string[];
  /** Model calls started (the next attempt's turnOffset is turnOffset + turns). */
  turns: number;
  usage: Usage;
  /** Tokens the conversation takes after the attempt's last call that reported any (0: none did). */
  context: number;
  calls: number;
  toolErrors: number;
  /** Compactions this attempt recorded (preemptive and after overflow errors). */
  compactions: number;
  error?: unknown;
  lastMessage?: AssistantMessage;
}

/**
 * What is sent to the provider: only the last `historyTurns` turns (history-limit.ts), an unanswered earlier turn
 * gets a "(no reply: …)" note (unanswered.ts), failed (error/aborted) assistant turns are left out entirely — their
 * partial tool calls would otherwise need results — and tool_use/tool_result pairing is repaired (E11) after the
 * cut, so a result whose call was cut off is never sent alone.
 */
export function buildContext(messages: readonly Message[], opts: RepairToolPairingOptions & { historyTurns?: number } = {}): Message[] {
  const kept = annotateUnanswered(limitHistoryTurns(messages, opts.historyTurns))
    .filter((m) => !(m.role === 'assistant' && (m.stopReason === 'error' || m.stopReason === 'aborted')))
    .map((m) => (m.role === 'user' && m.context !== undefined ? withTurnContext(m) : m));
  return repairToolPairing(kept, opts);
}

const toolSpecs = (tools: readonly Tool[]): ToolSpec[] =>
  tools.map(({ name, description, parameters }) => ({ name, description, parameters }));

export async function runAttempt(p: AttemptParams): Promise<AttemptResult> {
  const usage = new UsageAccumulator();
  const parts: ReplyPart[] = [];
  let turn = 0;
  // before_agent_finalize revisions are counted per run (the cap holds across the run's attempts).
  const revisions = p.revisions ?? { count: 0 };
  const hooks = asHookRunner(p.hooks);
  const hookCtx = { runId: p.runId, sessionKey: p.sessionKey, workspace: p.workspace };
  const messaging = createMessaging({
    emitter: p.emitter,
    turn: () => (p.turnOffset ?? 0) + turn,
    deliver: (text) => void parts.push({ kind: 'message', text }),
    ...(p.ledger ? { ledger: p.ledger } : {}),
  });
  const tools = p.sendMessage === false ? [...p.tools] : [...p.tools, messaging.tool];
  const specs = toolSpecs(tools);
  // Every provider call goes through the stream wrapper layers (E9), applied here to each event of its stream.
  const layersFor = streamMapper({ allowed: specs.map((t) => t.name), newId: p.newToolCallId });
  const compaction = p.compaction ?? newRunCompaction();
  const context = new AttemptContext(
    {
      windowTokens: p.windowTokens ?? p.model.contextWindow,
      systemPrompt: p.systemPrompt,
      tools: specs,
      emitter: p.emitter,
      summary: { streamFn: p.streamFn, model: p.model, apiKey: p.apiKey, idleTimeoutMs: p.idleTimeoutMs, now: p.now, headers: p.headers, ...(p.meter ? { meter: p.meter } : {}) },
      signal: p.signal,
      coordinator: compaction.coordinator,
      onCompacted: () => void compaction.compactions++,
      persistCompaction: p.persistCompaction ?? (async () => {}),
      ...(p.shortenToolResults ? { shortenToolResults: p.shortenToolResults } : {}),
      prepare: (ms) => buildContext(ms, { missingResultText: missingResultTextFor(p.model.api), historyTurns: p.historyTurns }),
      now: p.now,
    },
    { summary: p.summary, messages: p.messages, sinceCompaction: p.sinceCompaction },
  );
  let toolErrors = 0;
  let turns = 0;
  const reasoning: string[] = [];
  const maxRounds = p.maxToolRounds ?? MAX_TOOL_ROUNDS;
  const result = (kind: AttemptResult['kind'], extra: Partial<AttemptResult> = {}): AttemptResult => ({
    kind,
    parts,
    reasoning,
    turns,
    usage: usage.calls > 0 ? usage.result() : emptyUsage(),
    context: usage.context(),
    calls: usage.calls,
    toolErrors,
    compactions: context.compactions,
    ...extra,
  });

  for (; ; turn++) {
    if (turn >= maxRounds) {
      return result('error', { error: new Error(`The model kept calling tools for ${maxRounds} rounds; stopping.`) });
    }
    // E10: made to fit before every send. The truncate route shortens the stored results and skips the send: the
    // outer loop starts a fresh attempt from them (the seed's skipPromptSubmission).
    let prepared: Message[] | undefined;
    let prepareError: unknown;
    try {
      prepared = await context.prepare();
    } catch (err) {
      if (err instanceof AttemptRestart) return result('restart');
      prepareError = err;
    }
    const subscriber = new CallSubscriber(p.emitter, (p.turnOffset ?? 0) + turn, {
      holdStart: mayCloseThinkWithoutOpener(p.model),
      sentNormalized: () => messaging.ledger.sentNormalized(),
    });
    turns = turn + 1;
    const parseErrors = new Map<string, string>();
    const invalidCalls = new Map<string, string>();
    try {
      const req: StreamRequest = {
        model: p.model,
        apiKey: p.apiKey,
        systemPrompt: p.systemPrompt,
        messages: prepareError === undefined ? prepared! : await Promise.reject(prepareError),
        tools: specs,
        thinking: p.thinking,
        signal: p.signal,
        idleTimeoutMs: p.idleTimeoutMs,
        headers: p.headers,
      };
      const layers = layersFor(req);
      const out: ProviderEvent[] = [];
      modelCallStarts(hooks.checkpoint, p.runId);
      for await (const raw of p.streamFn(req)) {
        layers(raw, out);
        for (let i = 0; i < out.length; i++) {
          const event = out[i]!;
          if (event.type === 'toolcall_end' && event.parseError) parseErrors.set(event.id, event.parseError);
          if (event.type === 'toolcall_end' && event.invalid) invalidCalls.set(event.id, event.invalid);
          subscriber.handle(event);
        }
        out.length = 0;
      }
    } catch (err) {
      // Providers never throw by contract; this guards a broken one so the run still ends cleanly.
      subscriber.handle({ type: 'error', error: err, message: failedMessage(p, 'error', err) });
    }
    const outcome = subscriber.finish(() => failedMessage(p, 'error'));
    const message = outcome.message;
    if (compaction.coordinator.pendingRetries > 0) compaction.coordinator.resolveRetry();
    usage.add(message.usage);
    p.meter?.record('turn', p.model, message.usage, (p.turnOffset ?? 0) + turn);
    if (outcome.error === undefined) context.observe(message.usage);
    if (outcome.error !== undefined && message.stopReason === 'error' && p.profileId) message.profileId = p.profileId;
    await p.persist(message);
    context.push(message);
    if (outcome.error === undefined && outcome.visibleText.trim()) parts.push({ kind: 'reply', text: outcome.visibleText });
    if (outcome.error === undefined && outcome.thinkingText.trim()) reasoning.push(outcome.thinkingText);
    if (outcome.error !== undefined) {
      return result('error', { error: outcome.error, lastMessage: message });
    }

    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      const revision = await revisionRequest(hooks, { finalText: outcome.visibleText, revisions: revisions.count, aborted: p.signal.aborted }, hookCtx);
      if (revision === undefined) return result('ok', { lastMessage: message });
      // A hook asked for a revision: the superseded answer is not delivered; the request goes in as a user turn.
      revisions.count++;
      if (outcome.visibleText.trim()) parts.splice(parts.findLastIndex((x) => x.kind === 'reply'), 1);
      const request: Message = { role: 'user', content: revision, timestamp: p.now() };
      await p.persist(request);
      context.push(request);
      continue;
    }

    for (const call of calls) {
      messaging.beforeTool(call.id, call.name, call.arguments);
      const toolResult: ToolResultMessage = skipForSteer(p.steer, call, p.emitter, p.now) ?? await runToolCall(call, {
        runId: p.runId,
        sessionKey: p.sessionKey,
        tools,
        workspace: p.workspace,
        signal: p.signal,
        emitter: p.emitter,
        hooks,
        now: p.now,
        parseErrors,
        invalidCalls,
        resultMaxChars: context.caps.perResultChars,
      });
      messaging.afterTool(call.id, call.name, toolResult.isError);
      if (toolResult.isError) toolErrors++;
      if (call.name !== messaging.tool.name) parts.push({ kind: 'tool', text: toolSummary(toolResult.toolName, call.arguments, toolResult.content, toolResult.isError) });
      // tool_result_persist is synchronous: plugins may rewrite the record, never delay the write.
      const record = hooks.persistToolResult(toolResult, hookCtx);
      await p.persist(record);
      context.push(record);
    }
    if (p.signal.aborted) {
      return result('error', { error: p.signal.reason ?? abortError('The run was aborted.'), lastMessage: message });
    }
    const steered = drainSteer(p.steer, p.now);
    if (steered) {
      await p.persist(steered);
      context.push(steered);
    }
  }
}

function failedMessage(p: AttemptParams, stopReason: 'error' | 'aborted', err?: unknown): AssistantMessage {
  return {
    role: 'assistant',
    content: [],
    provider: p.model.provider,
    model: p.model.id,
    api: p.model.api,
    usage: emptyUsage(),
    stopReason,
    errorMessage: err instanceof Error ? err.message : undefined,
    timestamp: p.now(),
  };
}
