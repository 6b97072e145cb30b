/**
 * The typed API between the gateway (main process) and the renderer — shared by main, preload and renderer.
 * Transports (Electron IPC, loopback WebSocket, in-process) all carry exactly these requests and events.
 * This file must stay free of runtime imports so every bundle can include it.
 */

export type ThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high';
export type RunStatus = 'ok' | 'error' | 'timeout';

export interface UsageDto {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface AgentParams {
  message: string;
  sessionKey?: string;
  model?: string; // "provider/model"
  thinking?: ThinkingLevel;
  timeoutSeconds?: number;
  idempotencyKey?: string;
  /** E3: what happens when the session is busy (default: config agent.queueMode). */
  queueMode?: QueueMode;
  /**
   * E9: the folder the run's tools work in. With the sandbox on only the workspace itself is allowed (anything else
   * is a hard error); with it off, a folder inside the workspace.
   */
  cwd?: string;
}

export interface AgentAccepted {
  runId: string;
  sessionKey: string;
  sessionId: string;
  acceptedAt: number;
}

export interface WaitParams {
  runId: string;
  timeoutMs?: number;
}

export interface WaitResult {
  status: RunStatus;
  startedAt?: number;
  endedAt?: number;
  error?: string;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  payloads: { text: string; isError?: boolean }[];
  usage: UsageDto;
  meta: {
    provider: string;
    model: string;
    profileId: string | null;
    attempts: number;
    compactions: number;
    error?: string;
  };
}

export interface SessionSummary {
  sessionKey: string;
  sessionId: string;
  title: string;
  model?: string;
  updatedAt: number;
  usage: UsageDto;
  /** Thinking level chosen for this session (unset: the default). */
  thinking?: ThinkingLevel;
  createdAt?: number;
}

/** D3: a session matched by `sessions.search` (title or transcript text, case-insensitive). */
export interface SessionSearchHit {
  sessionKey: string;
  title: string;
  /** Where it matched: the title, or a short excerpt of the message (user, assistant, tool call or tool result). */
  where: 'title' | 'content';
  snippet: string;
}

/** The run of a session that is streaming now, with every event so far (a reloaded window replays them). */
export interface ActiveRunSnapshot {
  runId: string;
  /** The user message that started the run (not part of `history` while the run is active). */
  message: string;
  acceptedAt: number;
  events: AgentEvent[];
}

/** `sessions.open`: stored history up to the active run, then the active run as a replay. */
export interface SessionOpened {
  session: SessionSummary | null;
  /** The latest entries (all of them unless `limit` was given); starts at a user message when cut. */
  history: HistoryEntry[];
  /** Older entries left out by `limit` (0: the history is complete). */
  omitted: number;
  active: ActiveRunSnapshot | null;
}

export interface SessionExport {
  filename: string;
  mime: string;
  content: string;
}

/** One displayable transcript entry. */
export type HistoryEntry =
  | { role: 'user'; text: string; timestamp: number }
  | {
      role: 'assistant';
      text: string;
      thinking: string;
      toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
      stopReason: string;
      errorMessage?: string;
      timestamp: number;
      /** "provider/model" that wrote this message, and whether it was the offline demo model. */
      model?: string;
      demo?: boolean;
    }
  | { role: 'toolResult'; toolCallId: string; toolName: string; content: string; isError: boolean; timestamp: number }
  /** E10: the context was compacted here; earlier entries are summarised for the model (a divider in the UI). */
  | { role: 'compaction'; summary: string; tokensBefore: number; tokensAfter: number; timestamp: number };

export interface ModelInfo {
  ref: string; // provider/model
  provider: string;
  id: string;
  contextWindow: number;
  reasoning: boolean;
  demo: boolean;
  hasKey: boolean;
}

export interface AppInfo {
  workspace: string;
  home: string;
  defaultModel: string;
  version: string;
}

/** E6: one auth profile as the outer loop sees it (never the key itself). */
export interface ProfileStatus {
  id: string; // "provider:label"
  provider: string;
  source: 'env' | 'keychain';
  /** Masked key (last four characters), when the key is readable. */
  masked?: string;
  state: 'ok' | 'cooling' | 'disabled' | 'missing';
  /** Epoch ms when the cooldown ends (state 'cooling'). */
  cooldownUntil?: number;
  reason?: FailoverReasonDto;
  lastError?: string;
  lastGoodAt?: number;
  lastUsedAt?: number;
}

/** E3/E4: a run accepted but not started yet (queue.list). */
export interface QueueEntryDto {
  runId: string;
  sessionKey: string;
  mode: QueueMode;
  lane: 'global' | 'subagent';
  /** Where it waits: its session's lane (behind the busy run) or a bounded lane. */
  stage: 'session' | 'global' | 'subagent';
  position: number;
  enqueuedAt: number;
  /** The first 200 characters of its message (collect: the merged text so far). */
  preview: string;
  /** collect: how many messages it holds. */
  merged?: number;
}

/** E3 steer request: where the message went. */
export type SteerResultDto =
  | { status: 'steered'; runId: string; intoRunId: string }
  | { status: 'queued'; runId: string }
  /** A subagent was steered: its run was stopped and `runId` now carries the new message. */
  | { status: 'restarted'; runId: string; replacedRunId: string }
  | { status: 'rate_limited'; retryAfterMs: number };

/** E20: one subagent (a child run in the subagent lane, its own session linked to the parent's). */
export interface SubagentDto {
  id: string;
  parentSessionKey: string;
  parentRunId: string;
  sessionKey: string;
  runId: string;
  task: string;
  status: 'running' | 'queued' | 'ok' | 'error' | 'timeout';
  startedAt: number;
  endedAt?: number;
  steers: number;
}

/** D4: a key profile added in Settings (metadata only; the key itself never leaves main). */
export interface KeyProfileView {
  id: string; // "provider:label"
  provider: string;
  label: string;
  storage: 'keychain' | 'encrypted';
  addedAt: number;
  /** First six and last four characters, when the key is readable. */
  masked?: string;
}

/** D4: the outcome of "test key" (one minimal real request), classified like a run's errors. */
export type AuthTestResult =
  | { ok: true; model: string; latencyMs: number }
  | { ok: false; reason: FailoverReasonDto; message: string; latencyMs: number };

export type ApprovalMode = 'ask' | 'auto' | 'deny';

export interface SettingsDefaultsDto {
  model?: string;
  thinking?: ThinkingLevel;
  queueMode?: QueueMode;
  approval?: ApprovalMode;
  sandbox?: boolean;
  timeoutSeconds?: number;
}

export interface EndpointDto {
  api: 'anthropic' | 'openai-chat' | 'openai-responses';
  baseUrl: string;
  models: { id: string; contextWindow?: number; maxTokens?: number; reasoning?: boolean }[];
}

/** D4/D5: what the Settings view shows (never a key). */
export interface SettingsView {
  defaults: SettingsDefaultsDto;
  workspace: string;
  recentWorkspaces: string[];
  /** Endpoints added in Settings (OpenAI-compatible servers and the like), by provider name. */
  providers: Record<string, EndpointDto>;
  onboarded: boolean;
  keychain: { available: boolean; reason?: string; fix?: string };
  /** The app's encrypted fallback (Electron safeStorage): offered only in the desktop app. */
  encryptedFallback: { supported: boolean; allowed: boolean };
  /** Where the settings file lives. */
  file: string;
  /** Folder picking: 'dialog' in the desktop app, else a validated path field. */
  folderPicker: 'dialog' | 'path';
}

export interface SettingsPatch {
  defaults?: SettingsDefaultsDto;
  onboarded?: boolean;
  allowEncryptedFallback?: boolean;
  /** Add or replace (value) or remove (null) an endpoint. */
  providers?: Record<string, EndpointDto | null>;
}

/** Request name → [params, result]. */
export interface Methods {
  agent: [AgentParams, AgentAccepted];
  'agent.wait': [WaitParams, WaitResult];
  'agent.result': [{ runId: string }, RunResult | null];
  'agent.abort': [{ runId: string }, { aborted: boolean }];
  'sessions.list': [Record<string, never>, SessionSummary[]];
  'sessions.history': [{ sessionKey: string }, HistoryEntry[]];
  /** E10: compacts the session now (a run: compaction events, then agent.wait / agent.result as for `agent`). */
  'sessions.compact': [{ sessionKey: string }, AgentAccepted];
  'sessions.open': [{ sessionKey: string; limit?: number }, SessionOpened];
  'sessions.create': [{ model?: string; thinking?: ThinkingLevel }, SessionSummary];
  'sessions.update': [{ sessionKey: string; title?: string; model?: string; thinking?: ThinkingLevel | null }, SessionSummary];
  /** Removes the session from the list; `sessions.restore` brings it back within the undo window (default 30 s). */
  'sessions.delete': [{ sessionKey: string }, { deleted: boolean; undoUntil?: number }];
  'sessions.restore': [{ sessionKey: string }, SessionSummary];
  /** /reset: the key starts over with an empty transcript (the old one is kept on disk). */
  'sessions.reset': [{ sessionKey: string }, SessionSummary];
  'sessions.search': [{ query: string }, SessionSearchHit[]];
  'sessions.export': [{ sessionKey: string; format: 'markdown' | 'json' }, SessionExport];
  'auth.profiles': [Record<string, never>, KeyProfileView[]];
  'auth.add': [{ provider: string; label: string; key: string; storage?: 'keychain' | 'encrypted' }, KeyProfileView];
  'auth.remove': [{ id: string }, { removed: boolean }];
  'auth.reorder': [{ provider: string; ids: string[] }, KeyProfileView[]];
  'auth.test': [{ id: string }, AuthTestResult];
  'settings.get': [Record<string, never>, SettingsView];
  'settings.update': [SettingsPatch, SettingsView];
  /** Browser mode: a typed path; the desktop app: `dialog: true` opens the native folder picker. */
  'settings.setWorkspace': [{ path?: string; dialog?: boolean }, SettingsView];
  /** The model list an endpoint offers (GET {baseUrl}/models), for the Settings form. */
  'providers.fetchModels': [{ api: EndpointDto['api']; baseUrl: string; provider?: string }, { ids: string[] }];
  'models.list': [Record<string, never>, ModelInfo[]];
  'app.info': [Record<string, never>, AppInfo];
  /** E6: every auth profile with its state (ok / cooling until / disabled / missing); never a key. */
  'auth.status': [Record<string, never>, ProfileStatus[]];
  'queue.list': [{ sessionKey?: string }, QueueEntryDto[]];
  'queue.remove': [{ runId: string }, { removed: boolean }];
  /** Abort one run, every run of a session, every compacting run, or all runs. */
  'runs.abort': [{ runId?: string; sessionKey?: string; scope?: 'compacting' | 'all' }, { aborted: number }];
  /** Steer a message into the session's running tool loop (else it runs as a followup). */
  'agent.steer': [{ sessionKey: string; message: string }, SteerResultDto];
  'subagents.list': [{ parentSessionKey?: string }, SubagentDto[]];
  'subagents.abort': [{ id: string }, { aborted: boolean }];
  'subagents.steer': [{ id: string; message: string }, SteerResultDto];
  /** T3: answers a pending approval request; `ok: false` when it was already answered or its run ended. */
  'approvals.respond': [ApprovalRespondParams, { ok: boolean }];
}

export interface ApprovalRespondParams {
  approvalId: string;
  decision: ApprovalDecision;
  /** Shown to the model with a denial. */
  reason?: string;
}
export type MethodName = keyof Methods;

export type StreamName = 'lifecycle' | 'assistant' | 'thinking' | 'tool' | 'compaction' | 'retry' | 'queue' | 'approval';

/** E8 reasons a provider call failed (the engine's classification). */
export type FailoverReasonDto =
  | 'rate_limit'
  | 'overloaded'
  | 'billing'
  | 'auth'
  | 'timeout'
  | 'context_overflow'
  | 'format'
  | 'model_not_found'
  | 'server_error'
  | 'aborted'
  | 'unknown';

/** Payloads per stream. */
export type LifecycleData =
  | {
      phase: 'start';
      startedAt: number;
      provider: string;
      model: string;
      demo?: boolean;
      /** E5: the model's usable context window is small (under 32 000 tokens); the run goes on. */
      warning?: string;
    }
  | { phase: 'end'; endedAt: number; result: RunResult }
  | { phase: 'error'; endedAt: number; error: string; result: RunResult };
export interface AssistantData {
  /** New text since the previous assistant event of this run (never repeats earlier text). */
  delta: string;
  /** Full visible text of the current assistant message so far. */
  text: string;
  /** Index of the model call within the run (0, 1, …): a new value starts a new assistant message. */
  turn?: number;
  /**
   * E15: a completed reply block (paragraph › newline › sentence breaks, fences kept whole). Sent with an empty
   * `delta` after the deltas it covers; the blocks of a message concatenate to its visible text.
   */
  block?: string;
  /** E16: an interim message the model posted with `send_message` (`delta` is its text, shown as its own paragraph). */
  interim?: true;
}
export interface ThinkingData {
  delta: string;
  text: string;
  turn?: number;
}
export type ToolData =
  | { phase: 'start'; toolCallId: string; name: string; args: Record<string, unknown> }
  | { phase: 'update'; toolCallId: string; name: string; partial: string }
  | { phase: 'end'; toolCallId: string; name: string; result: string; isError: boolean; durationMs: number };
/** Why a compaction ran: before a send (E10), after a provider overflow error, or asked for (/compact). */
export type CompactionReasonDto = 'preemptive' | 'overflow' | 'manual';
/** E14 `compaction` stream. A failed compaction ends with `error` set and tokensAfter = tokensBefore. */
export type CompactionData =
  | { phase: 'start'; reason?: CompactionReasonDto }
  | { phase: 'end'; tokensBefore: number; tokensAfter: number; reason?: CompactionReasonDto; error?: string };

/**
 * E7: one attempt failed and the outer loop decided what comes next ("rate-limited on anthropic:work, trying
 * anthropic:personal"). Whatever the failed model call had streamed (its `turn`) is discarded: a client drops that
 * turn's partial text, thinking and unfinished tool rows, so nothing is shown twice when the next attempt streams.
 */
export interface RetryData {
  /** 1-based number of the attempt that failed. */
  attempt: number;
  reason: FailoverReasonDto;
  /** One readable line (keys redacted). */
  message: string;
  provider: string;
  model: string;
  profileId: string | null;
  /** The turn index whose partial output is discarded (absent: nothing had streamed). */
  discardTurn?: number;
  /** When the failed profile's cooldown ends (epoch ms), if it entered one. */
  cooldownUntil?: number;
  next:
    | { action: 'rotate'; profileId: string }
    /** Wait (exponential backoff), then retry — on `profileId` when given. */
    | { action: 'backoff'; waitMs: number; profileId?: string }
    /** Wait as the server asked (retry-after), then retry — on `profileId` when given. */
    | { action: 'wait'; waitMs: number; profileId?: string }
    | { action: 'fallback'; provider: string; model: string }
    | { action: 'compact' }
    | { action: 'give_up' };
}

export type QueueMode = 'followup' | 'collect' | 'steer' | 'interrupt';

/** E3: what happened to a message that arrived while its session was busy, and lane waits over 2 s. */
export type QueueData =
  | { phase: 'queued'; mode: QueueMode; position: number }
  | { phase: 'waiting'; waitedMs: number; lane: 'session' | 'global' | 'subagent' }
  | { phase: 'merged'; intoRunId: string }
  | { phase: 'steered'; intoRunId: string }
  | { phase: 'removed' }
  | { phase: 'started' };

/** T3: a tool call waits for the person's decision. */
export type ApprovalDecision = 'allow_once' | 'allow_session' | 'deny';
export type ApprovalData =
  | {
      phase: 'request';
      approvalId: string;
      toolCallId: string;
      tool: string;
      args: Record<string, unknown>;
      cwd: string;
      /** Unified diff for write / edit / apply_patch. */
      diff?: string;
      /** False where exec runs without an OS sandbox. */
      sandboxed: boolean;
    }
  | { phase: 'resolved'; approvalId: string; toolCallId: string; decision: ApprovalDecision; reason?: string };

export interface AgentEvent {
  type: 'event';
  runId: string;
  sessionKey: string;
  /** Gapless per run, starting at 0. */
  seq: number;
  stream: StreamName;
  data: LifecycleData | AssistantData | ThinkingData | ToolData | CompactionData | RetryData | QueueData | ApprovalData;
  ts: number;
}

/** Commands of the desktop app's menu, forwarded to the window (the web UI has keyboard shortcuts instead). */
export type MenuCommand = 'new-chat' | 'settings' | 'open-folder';

/** What preload exposes as `window.agentdesk`. */
export interface AgentDeskApi {
  request<M extends MethodName>(method: M, params: Methods[M][0]): Promise<Methods[M][1]>;
  /** Subscribe to all run events; returns an unsubscribe function. */
  onEvent(listener: (event: AgentEvent) => void): () => void;
  /** Desktop app only: menu commands (File › New Chat, Settings…, Open Folder…). */
  onMenu?(listener: (command: MenuCommand) => void): () => void;
}

/** IPC channel names (Electron). */
export const IPC_REQUEST = 'agentdesk:request';
export const IPC_EVENT = 'agentdesk:event';
export const IPC_MENU = 'agentdesk:menu';

/** What main returns for IPC_REQUEST (preload turns `ok: false` into a rejected promise). */
export type IpcEnvelope = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };
