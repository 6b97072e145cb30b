/**
 * The hook set (E19): what plugins and the app can hook into, with the event each hook receives and what it may
 * return. Hooks run through the HookRunner (hook-runner.ts), which isolates failures and time-boxes every call.
 */
import type { Message, ToolResultMessage } from '../messages.js';

/** Where a hook is running: enough to tell runs and sessions apart. */
export interface HookContext {
  runId?: string;
  sessionKey?: string;
  sessionId?: string;
  workspace?: string;
}

export interface ModelResolveResult {
  providerOverride?: string;
  modelOverride?: string;
}

export interface PromptBuildResult {
  /** Replaces the whole system prompt. */
  systemPrompt?: string;
  /** Text put before the user's message for this run. */
  prependContext?: string;
  prependSystemContext?: string;
  appendSystemContext?: string;
}

export type FinalizeResult = { action: 'revise'; reason: string; retry?: { instruction: string } } | { action: 'finalize' };

export interface BeforeToolCallResult {
  /** Replace the call's arguments. */
  params?: Record<string, unknown>;
  /** Refuse the call; the model receives `reason` as an error result. Terminal: later hooks cannot undo it. */
  block?: boolean;
  reason?: string;
}

export interface ToolCallInfo {
  runId: string;
  sessionKey: string;
  toolCallId: string;
  toolName: string;
  params: Record<string, unknown>;
}

export interface MessageSendingResult {
  content?: string;
  /** Terminal: the payload is not delivered. */
  cancel?: boolean;
}

type Awaitable<T> = T | Promise<T>;

/** E19 internal command hooks: a command the gateway owns (`/new`, `/reset`, `/stop`, `/compact`, …) ran. */
export interface CommandHookEvent {
  command: string;
  /** The command's argument (`/model` ref, `/think` level, `/verbose` on|off). */
  args?: string;
  sessionKey: string;
  /** The session the command was typed in (absent when the key had no session yet). */
  sessionId?: string;
  /** False when it was refused (bad argument, a run in the way). */
  ok: boolean;
  /** `/new`: the key of the session it started. */
  newSessionKey?: string;
}

type CommandHook = (event: CommandHookEvent, ctx: HookContext) => Awaitable<void>;

/** Every hook and its handler signature. */
export interface HookHandlers {
  /** Before the model is resolved: may switch provider and/or model. Wins over before_agent_start. */
  before_model_resolve: (event: { prompt: string; provider: string; model: string }, ctx: HookContext) => Awaitable<ModelResolveResult | void>;
  /** Legacy: may also return provider/model overrides (used only where before_model_resolve left them unset). */
  before_agent_start: (event: { prompt: string }, ctx: HookContext) => Awaitable<ModelResolveResult | void>;
  before_prompt_build: (event: { prompt: string; systemPrompt: string; messages: readonly Message[] }, ctx: HookContext) => Awaitable<PromptBuildResult | void>;
  /** Before a natural final answer is accepted: may ask for a revision (at most MAX_FINALIZE_REVISIONS per run). */
  before_agent_finalize: (event: { finalText: string; revisions: number }, ctx: HookContext) => Awaitable<FinalizeResult | void>;
  /** The run ended; `messages`: the session's messages as they are now (the run's turn at the end). */
  agent_end: (event: { status: string; error?: string; durationMs: number; messages: readonly Message[] }, ctx: HookContext) => Awaitable<void>;
  /** A compaction starts (`reason`: preemptive, overflow or manual). Fire-and-forget. */
  before_compaction: (event: { reason?: string }, ctx: HookContext) => Awaitable<void>;
  /** A compaction ended (`error` when it failed; tokensAfter = tokensBefore then). Fire-and-forget. */
  after_compaction: (event: { reason?: string; tokensBefore: number; tokensAfter: number; error?: string }, ctx: HookContext) => Awaitable<void>;
  before_tool_call: (info: ToolCallInfo) => Awaitable<BeforeToolCallResult | void>;
  /** Fire-and-forget: never awaited by the run. */
  after_tool_call: (info: ToolCallInfo & { result: string; isError: boolean; durationMs: number }) => Awaitable<void>;
  /** Synchronous: may replace the tool result before it is written to the transcript. A returned promise is ignored. */
  tool_result_persist: (event: { message: ToolResultMessage }, ctx: HookContext) => { message?: ToolResultMessage } | void;
  message_received: (event: { content: string }, ctx: HookContext) => Awaitable<void>;
  message_sending: (event: { content: string; isError: boolean }, ctx: HookContext) => Awaitable<MessageSendingResult | void>;
  message_sent: (event: { content: string; isError: boolean }, ctx: HookContext) => Awaitable<void>;
  session_start: (event: { sessionKey: string; sessionId: string }, ctx: HookContext) => Awaitable<void>;
  session_end: (event: { sessionKey: string; sessionId: string; reason: string }, ctx: HookContext) => Awaitable<void>;
  gateway_start: (event: { workspace: string }, ctx: HookContext) => Awaitable<void>;
  gateway_stop: (event: Record<string, never>, ctx: HookContext) => Awaitable<void>;
  /** Internal: may add, drop or change the workspace bootstrap files before they enter the system prompt. */
  'agent:bootstrap': (event: { files: BootstrapFile[] }, ctx: HookContext) => Awaitable<{ files?: BootstrapFile[] } | void>;
  /** Internal command hooks (fire-and-forget), one per command the gateway owns. */
  'command:new': CommandHook;
  'command:reset': CommandHook;
  'command:stop': CommandHook;
  'command:compact': CommandHook;
  'command:model': CommandHook;
  'command:think': CommandHook;
  'command:verbose': CommandHook;
  'command:status': CommandHook;
}

export interface BootstrapFile {
  name: string;
  content: string;
}

export type HookName = keyof HookHandlers;

export const HOOK_NAMES: readonly HookName[] = [
  'before_model_resolve',
  'before_agent_start',
  'before_prompt_build',
  'before_agent_finalize',
  'agent_end',
  'before_compaction',
  'after_compaction',
  'before_tool_call',
  'after_tool_call',
  'tool_result_persist',
  'message_received',
  'message_sending',
  'message_sent',
  'session_start',
  'session_end',
  'gateway_start',
  'gateway_stop',
  'agent:bootstrap',
  'command:new',
  'command:reset',
  'command:stop',
  'command:compact',
  'command:model',
  'command:think',
  'command:verbose',
  'command:status',
];

/** A set of handlers, e.g. what the app passes in or what one plugin registers. */
export type EngineHooks = { [K in HookName]?: HookHandlers[K] };

export function logHookFailure(hook: string, err: unknown, source?: string): void {
  const from = source ? ` (${source})` : '';
  console.error(`[agentdesk] hook ${hook}${from} failed: ${(err as Error)?.message ?? String(err)}`);
}
