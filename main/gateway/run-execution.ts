/**
 * How the gateway accepts a message and executes a run (E1–E4): `accept` answers a command the gateway owns
 * (commands/: `/stop`, `/model`, … — never sent to the model), or resolves the model and the session and hands the
 * message to the dispatcher (queue modes, lanes); the dispatcher's `execute` runs it — model hooks, then the outer
 * loop (or a `/compact` run) with the session's store, tools, prompt, keys and providers.
 */
import { randomUUID } from 'node:crypto';
import type { QueueMode } from '../../preload/contract.js';
import type { AuthPool } from '../auth/pool.js';
import type { HookRunner } from '../engine/attempt/hook-runner.js';
import { runWorkspace } from '../engine/attempt/run-cwd.js';
import { SEND_MESSAGE_TOOL } from '../engine/attempt/send-message.js';
import type { SkillCatalog } from '../engine/attempt/skills.js';
import { buildSystemPrompt } from '../engine/attempt/system-prompt.js';
import type { AppConfig } from '../engine/config/schema.js';
import { defaultModelRef, effectiveContextTokens, parseModelRef, resolveModel } from '../engine/models.js';
import { executeRun, type Timers } from '../engine/run/agent-run.js';
import { COMPACT_COMMAND, executeCompactRun, isCompactCommand } from '../engine/run/compact-run.js';
import { Dispatcher } from '../engine/run/dispatcher.js';
import type { BoundedLane, Lanes } from '../engine/run/lanes.js';
import type { RecoverOverflow } from '../engine/run/overflow-recovery.js';
import { resolveModelWithHooks } from '../engine/run/run-hooks.js';
import type { RunRecord, RunRegistry } from '../engine/run/runs.js';
import type { AgentEvent } from '../../preload/contract.js';
import type { ModelDef, StreamFn, ThinkingLevel } from '../providers/types.js';
import type { Attachment } from '../engine/messages.js';
import type { SessionStore } from '../sessions/store.js';
import { processTable } from '../tools/processes.js';
import type { Tool } from '../tools/types.js';
import type { ActiveRuns } from './methods/active-runs.js';
import { GatewayError } from './types.js';
import { withBudget, type GateDeps, type RunScope } from '../usage/gate.js';
import type { SteerInbox } from '../engine/attempt/steer.js';
import type { RunEmitter } from '../engine/stream/run-emitter.js';
import type { RunResult } from '../../preload/contract.js';
import type { CommandOutcome } from '../../preload/contract.js';
import { parseCommand } from './commands/parse.js';
import { runCommand, type CommandDeps } from './commands/run-command.js';
import { commandRun } from './commands/as-run.js';
import { lockOwner } from '../sessions/file-lock.js';
import { holderState } from '../sessions/lock-owner.js';
import { requestSessionStop, sessionLockPath } from '../sessions/session-lock.js';

export interface AcceptRequest {
  message: string;
  /** X3: attachments by id (sha256 in the attachments store), with the name to show. */
  attachments?: { id: string; name?: string; mention?: 'file' | 'folder' }[];
  sessionKey: string;
  model?: string;
  thinking?: ThinkingLevel;
  timeoutSeconds?: number;
  queueMode?: QueueMode;
  /** E21 verbose for this run (the CLI's --verbose); unset: the session's /verbose, else agent.verbose. */
  verbose?: boolean;
  /** E9: extra system prompt text for this run (after the session's custom instructions). */
  extraSystemPrompt?: string;
  lane?: BoundedLane;
  parent?: { runId: string; sessionKey: string };
  cwd?: string;
}

export interface RunExecutionContext {
  /** Live: a settings change applies to the next run. */
  config: AppConfig;
  env: NodeJS.ProcessEnv;
  store: SessionStore;
  hooks: HookRunner;
  skills: SkillCatalog;
  auth: AuthPool;
  lanes: Lanes;
  runs: RunRegistry;
  emit: (event: AgentEvent) => void;
  active: ActiveRuns;
  now: () => number;
  timers: Timers;
  random: () => number;
  streamFor: (model: ModelDef) => StreamFn;
  /** X4: the budgets every model call of a run is checked against (absent: no gate). */
  budgetGate?: GateDeps;
  recoverOverflow: RecoverOverflow;
  idleTimeoutMs: (model: ModelDef) => number;
  /** The configured fallback models (recomputed when Settings change). */
  fallbacks: () => ModelDef[];
  workspace: () => string;
  /** Tools of a subagent run (the workspace tools) and of a top-level run (those, and spawn_subagent). */
  tools: readonly Tool[];
  parentTools: () => readonly Tool[];
  isClosed: () => boolean;
  /** X3: the stored attachments a message names, checked against the model (an image to a text-only model is refused). */
  attachmentsFor: (refs: { id: string; name?: string; mention?: 'file' | 'folder' }[], model: ModelDef) => Promise<Attachment[]>;
  /** X1: the MCP tools a top-level run is offered besides `builtIn` (servers that cannot start are left out). */
  mcpTools?: (model: ModelDef, builtIn: readonly Tool[]) => Promise<Tool[]>;
}

interface RunOptions {
  model: ModelDef;
  thinking: ThinkingLevel;
  timeoutMs: number;
  tools: readonly Tool[];
  /** The folder the run's tools work in (the workspace, or a cwd inside it when the sandbox is off). */
  workspace: string;
  /** X1: a top-level run is offered MCP tools too (a subagent is not). */
  withMcp: boolean;
  /** E16/E21: reasoning and tool summaries in the payloads (request › session /verbose › agent.verbose). */
  verbose: boolean;
  /** E9: the session's custom instructions and the request's extra system prompt, joined. */
  extraSystemPrompt?: string;
  /** E22: the last N turns sent (the session's historyTurns, else agent.historyTurns). */
  historyTurns?: number;
}

export interface RunExecution {
  dispatcher: Dispatcher;
  /** A message (or a command sent as one) → its run record. */
  accept: (p: AcceptRequest) => Promise<RunRecord>;
  /** `commands.run`: `text` run as a command of the session, or null when it is ordinary text. */
  command: (sessionKey: string, text: string) => Promise<CommandOutcome | null>;
}

export function createRunExecution(ctx: RunExecutionContext): RunExecution {
  const { config, env, store, hooks, now, timers } = ctx;
  const denied = (tool: string): boolean => config.agent.approvals.denyTools.includes(tool);
  /** What each accepted run executes with, by runId (until it ends). */
  const runOptions = new Map<string, RunOptions>();

  const dispatcher = new Dispatcher({
    lanes: ctx.lanes,
    runs: ctx.runs,
    store,
    emit: ctx.emit,
    now,
    timers,
    execute: (record, message, inbox, emitter) => executeRecord(record, message, inbox, emitter),
  });

  async function executeRecord(record: RunRecord, message: string, inbox: SteerInbox, emitter: RunEmitter): Promise<RunResult> {
    {
      // X4: every model call of this run (tool loop, retries, compaction summaries) passes the budget gate first.
      const gate = ctx.budgetGate;
      const scope: RunScope = { sessionKey: record.sessionKey, sessionId: record.sessionId, runId: record.runId, emit: (data) => emitter.emit('budget', data) };
      const streamFnFor = gate ? (m: ModelDef) => withBudget(ctx.streamFor(m), gate, scope) : ctx.streamFor;
      const o = runOptions.get(record.runId)!;
      const hookContext = { runId: record.runId, sessionKey: record.sessionKey, sessionId: record.sessionId, workspace: o.workspace };
      // E19: before_model_resolve (then legacy before_agent_start) may switch the model for this run.
      const model = await resolveModelWithHooks(hooks, { prompt: message, model: o.model }, hookContext, (ref) => resolveModel(config, ref));
      const compact = isCompactCommand(message);
      // X1: MCP tools are resolved per run (a server's list may have changed since the last one).
      const tools = o.withMcp && !compact && ctx.mcpTools ? [...o.tools, ...(await ctx.mcpTools(model, o.tools)).filter((t) => !denied(t.name))] : o.tools;
      // `/compact` (E10) compacts the session instead of a model turn, in the same lane.
      return (compact ? executeCompactRun : executeRun)(
        {
          runId: record.runId,
          sessionKey: record.sessionKey,
          sessionId: record.sessionId,
          message,
          ...(record.attachments?.length ? { attachments: record.attachments } : {}),
          model,
          fallbacks: ctx.fallbacks().filter((f) => f.provider !== model.provider || f.id !== model.id),
          thinking: o.thinking,
          timeoutMs: o.timeoutMs,
          steer: inbox,
          ...(o.historyTurns ? { historyTurns: o.historyTurns } : {}),
        },
        {
          store,
          tools,
          workspace: o.workspace,
          hooks,
          verbose: o.verbose,
          sendMessage: !denied(SEND_MESSAGE_TOOL),
          systemPrompt: async (m) =>
            buildSystemPrompt({
              workspace: o.workspace,
              model: m,
              tools: [...tools, ...(denied(SEND_MESSAGE_TOOL) ? [] : [{ name: SEND_MESSAGE_TOOL, description: '', parameters: {} }])],
              ...(o.extraSystemPrompt ? { extraSystemPrompt: o.extraSystemPrompt } : {}),
              now: now(),
              skills: await ctx.skills.snapshot(),
              hooks,
              hookContext,
            }),
          now,
          timers,
          random: ctx.random,
          auth: ctx.auth,
          streamFnFor,
          idleTimeoutMs: ctx.idleTimeoutMs,
          contextTokens: (m) => effectiveContextTokens(m, config),
          recoverOverflow: ctx.recoverOverflow,
        },
        emitter,
        record.controller.signal,
      ).finally(() => processTable.endRun(record.runId)); // background commands do not outlive their run
    }
  }

  const resolveOrRefuse = (ref: string): ModelDef => {
    try {
      return resolveModel(config, ref);
    } catch (err) {
      throw new GatewayError('bad_request', (err as Error).message);
    }
  };
  const known = (ref: string): boolean => {
    try {
      resolveModel(config, ref);
      return true;
    } catch {
      return false;
    }
  };

  /** Resolves the model and session, then hands the message to the dispatcher (queue modes, lanes). */
  async function acceptMessage(p: AcceptRequest): Promise<RunRecord> {
    if (ctx.isClosed()) throw new GatewayError('internal', 'The gateway is shutting down.');
    if (p.model) resolveOrRefuse(p.model); // refuse before a session is created
    // E9: with the sandbox on, a cwd override is a hard error.
    const runWs = await runWorkspace({ workspace: ctx.workspace(), sandbox: config.agent.sandbox, ...(p.cwd ? { cwd: p.cwd } : {}) }).catch((err: Error) => {
      throw new GatewayError('bad_request', err.message);
    });
    const fallbackRef = p.model ?? defaultModelRef(config, env);
    // A new session fires session_start (the store's onSessionStart, for every way a session begins).
    const existed = await store.get(p.sessionKey);
    // X3: attachments are checked against the model the run will use before anything is created or sent.
    let attachments: Attachment[] | undefined;
    if (p.attachments?.length) {
      const planned = p.model ?? (existed?.model && known(existed.model) ? existed.model : fallbackRef);
      attachments = await ctx.attachmentsFor(p.attachments, resolveOrRefuse(planned));
    }
    let session = await store.resolve(p.sessionKey, { model: fallbackRef, ...(p.parent ? { parentSessionKey: p.parent.sessionKey } : {}) });
    // A session remembers its model and thinking level: used when the request names none (and still known).
    const ref = p.model ?? (session.model && known(session.model) ? session.model : fallbackRef);
    const model = resolveOrRefuse(ref);
    if (p.thinking && session.thinking !== p.thinking) session = await store.update(p.sessionKey, { thinking: p.thinking });
    const runId = randomUUID();
    const extra = [session.extraSystemPrompt, p.extraSystemPrompt].map((s) => s?.trim()).filter(Boolean).join('\n\n');
    runOptions.set(runId, {
      workspace: runWs,
      model,
      thinking: p.thinking ?? session.thinking ?? config.agent.thinking,
      verbose: p.verbose ?? session.verbose ?? config.agent.verbose,
      ...(extra ? { extraSystemPrompt: extra } : {}),
      ...((session.historyTurns ?? config.agent.historyTurns) ? { historyTurns: session.historyTurns ?? config.agent.historyTurns } : {}),
      timeoutMs: (p.timeoutSeconds ?? config.agent.timeoutSeconds) * 1000,
      // E9: a tool on the deny list is not offered to the model at all (not merely refused when called).
      tools: (p.lane === 'subagent' ? ctx.tools : ctx.parentTools()).filter((t) => !denied(t.name)),
      withMcp: p.lane !== 'subagent',
    });
    ctx.active.track({ runId, sessionKey: p.sessionKey, acceptedAt: now() }, p.message);
    const record = dispatcher.submit({
      runId,
      sessionKey: p.sessionKey,
      sessionId: session.sessionId,
      acceptedAt: now(),
      message: p.message,
      ...(attachments ? { attachments } : {}),
      // /compact never merges into or steers another run: it waits its turn like a followup.
      mode: isCompactCommand(p.message) ? 'followup' : (p.queueMode ?? config.agent.queueMode),
      model: { provider: model.provider, id: model.id },
      ...(p.lane ? { lane: p.lane } : {}),
      ...(p.parent ? { parent: p.parent } : {}),
    });
    void record.done.finally(() => {
      runOptions.delete(runId);
      ctx.active.forget(runId);
    });
    return record;
  }

  const commandDeps: CommandDeps = {
    store,
    runs: ctx.runs,
    config,
    hooks,
    now,
    resolveModel: (ref) => resolveModel(config, ref),
    defaultModelRef: () => defaultModelRef(config, env),
    contextTokens: (m) => effectiveContextTokens(m, config),
    busyHere: (sessionKey) => ctx.runs.active().some((r) => r.sessionKey === sessionKey),
    busyElsewhere: async (sessionKey) => {
      const owner = await lockOwner(sessionLockPath(store.dir, sessionKey)).catch(() => undefined);
      return owner !== undefined && holderState(owner) !== 'dead';
    },
    stopElsewhere: (sessionKey) => requestSessionStop(store.dir, sessionKey),
    compact: async (sessionKey) => (await acceptMessage({ message: COMPACT_COMMAND, sessionKey })).runId,
  };

  /** A message → its run; a command the gateway owns → answered here (E22), as a run record for `agent`. */
  async function accept(p: AcceptRequest): Promise<RunRecord> {
    // Only a person's message can be a command: a subagent's task is text for its model, whatever it starts with.
    const parsed = p.lane === 'subagent' ? undefined : parseCommand(p.message);
    if (!parsed) return acceptMessage(p);
    if (ctx.isClosed()) throw new GatewayError('internal', 'The gateway is shutting down.');
    const outcome = await runCommand(parsed, p.sessionKey, commandDeps);
    if (outcome.runId) return ctx.runs.get(outcome.runId)!;
    const session = await store.get(p.sessionKey);
    const ref = parseModelRef(session?.model ?? defaultModelRef(config, env));
    return commandRun(outcome, {
      runId: randomUUID(),
      sessionKey: p.sessionKey,
      sessionId: session?.sessionId ?? '',
      model: { provider: ref.provider, id: ref.model },
      runs: ctx.runs,
      emit: ctx.emit,
      now,
    });
  }

  async function command(sessionKey: string, text: string): Promise<CommandOutcome | null> {
    const parsed = parseCommand(text);
    return parsed ? runCommand(parsed, sessionKey, commandDeps) : null;
  }

  return { dispatcher, accept, command };
}
