/** D2 contract: every gateway request by name, with its params and result types. */
import type { ApprovalRespondParams } from './approvals.js';
import type { CheckpointDiff, CheckpointDto, CheckpointPreview, RestoreDto, RestoreMode, RestoreResultDto } from './checkpoints.js';
import type { AgentEvent } from './events.js';
import type { AuthTestResult, KeyProfileView, ProfileStatus } from './auth.js';
import type { QueueEntryDto, SteerResultDto, SubagentDto } from './queue.js';
import type { AgentAccepted, AgentParams, RunResult, WaitParams, WaitResult, ThinkingLevel } from './runs.js';
import type { HistoryEntry, SessionExport, SessionOpened, SessionSearchHit, SessionSummary } from './sessions.js';
import type { AppInfo, EndpointDto, ModelInfo, SettingsPatch, SettingsView } from './settings.js';
import type { McpApprovalDto, McpServerInputDto, McpStatusDto } from './mcp.js';
import type { CommandOutcome } from './commands.js';
import type { AttachmentDto, PathCompletion } from './attachments.js';
import type { BudgetDto, BudgetNameDto, UsageReportDto } from './usage.js';

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
  /** `before`: the earlier part of a long chat, a piece at a time — the latest `limit` messages before an `earlier` point (no `active`). */
  'sessions.open': [{ sessionKey: string; limit?: number; before?: { sessionId: string; offset: number } }, SessionOpened];
  'sessions.create': [{ model?: string; thinking?: ThinkingLevel }, SessionSummary];
  'sessions.update': [
    { sessionKey: string; title?: string; model?: string; thinking?: ThinkingLevel | null; extraSystemPrompt?: string | null; historyTurns?: number | null },
    SessionSummary,
  ];
  /** Removes the session from the list; `sessions.restore` brings it back within the undo window (default 30 s). */
  'sessions.delete': [{ sessionKey: string }, { deleted: boolean; undoUntil?: number }];
  'sessions.restore': [{ sessionKey: string }, SessionSummary];
  /** /reset: the key starts over with an empty transcript (the old one is kept on disk). */
  'sessions.reset': [{ sessionKey: string }, SessionSummary];
  'sessions.search': [{ query: string }, SessionSearchHit[]];
  'sessions.export': [{ sessionKey: string; format: 'markdown' | 'json' }, SessionExport];
  'auth.profiles': [Record<string, never>, KeyProfileView[]];
  'auth.add': [{ provider: string; label: string; key: string; storage?: 'keychain' | 'encrypted' }, KeyProfileView];
  /** Removes a key profile; it can be put back with `auth.restore` until `undoUntil`. */
  'auth.remove': [{ id: string }, { removed: boolean; undoUntil?: number }];
  'auth.restore': [{ id: string }, KeyProfileView];
  'auth.reorder': [{ provider: string; ids: string[] }, KeyProfileView[]];
  'auth.test': [{ id: string }, AuthTestResult];
  'settings.get': [Record<string, never>, SettingsView];
  'settings.update': [SettingsPatch, SettingsView];
  /** Browser mode: a typed path; the desktop app: `dialog: true` opens the native folder picker. */
  'settings.setWorkspace': [{ path?: string; dialog?: boolean }, SettingsView];
  /** The model list an endpoint offers (GET {baseUrl}/models), for the Settings form. */
  'providers.fetchModels': [{ api: EndpointDto['api']; baseUrl: string; provider?: string; apiKey?: string }, { ids: string[] }];
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
  /**
   * E22: runs `text` as a command of the session when it is one (`/new`, `/reset`, `/stop`, `/compact`, `/model`,
   * `/think`, `/verbose`, `/status`); null when it is ordinary text (send it with `agent`).
   */
  'commands.run': [{ sessionKey: string; text: string }, CommandOutcome | null];
  /**
   * Edit / Regenerate / Retry: the chat continues from before the person's message `fromEnd` (0: the last), whose
   * text is `text`; with `keep` the conversation it leaves stays listed as "Earlier version: …" (`kept`).
   */
  'sessions.branch': [{ sessionKey: string; fromEnd: number; text: string; keep: boolean }, { session: SessionSummary; kept?: SessionSummary }];
  /** Undo of `/reset`: the chat goes back to its earlier conversation (`keptKey`, from the outcome's `kept`). */
  'sessions.undoReset': [{ sessionKey: string; keptKey: string }, SessionSummary];
  /** T3: answers a pending approval request; `ok: false` when it was already answered or its run ended. */
  'approvals.respond': [ApprovalRespondParams, { ok: boolean }];
  /**
   * X2: the session's checkpoints (oldest first), its last restore (for "Undo restore"), and what was finished
   * after a crash at start-up (an interrupted restore completed, an interrupted checkpoint discarded).
   */
  'checkpoints.list': [{ sessionKey: string }, { checkpoints: CheckpointDto[]; lastRestore: RestoreDto | null; notices?: string[] }];
  /** X2: what restoring the files of checkpoint `id` would change now. */
  'checkpoints.preview': [{ sessionKey: string; id: string }, CheckpointPreview];
  'checkpoints.diff': [{ sessionKey: string; id: string; path: string }, CheckpointDiff];
  /** X2: restore files, conversation or both to before checkpoint `id`'s turn (refused while a run is active). */
  'checkpoints.restore': [{ sessionKey: string; id: string; mode: RestoreMode }, RestoreResultDto];
  /** X2: undoes the session's last restore. */
  'checkpoints.undo': [{ sessionKey: string }, RestoreResultDto];
  /** X2: disk use of the checkpoint store (Settings). */
  'checkpoints.usage': [Record<string, never>, { bytes: number; sessions: number }];
  /** X1: the MCP servers as Settings shows them (live status, tools, token cost). */
  'mcp.status': [Record<string, never>, McpStatusDto];
  /** Adds (or, with previousName, edits) a server; secret values go to the keychain. */
  'mcp.save': [{ name: string; previousName?: string; server: McpServerInputDto }, McpStatusDto];
  'mcp.remove': [{ name: string }, McpStatusDto];
  'mcp.setEnabled': [{ name: string; enabled: boolean }, McpStatusDto];
  /** A tool on/off (offered to the model or not) and "always allow". */
  'mcp.setTool': [{ name: string; tool: string; enabled?: boolean; alwaysAllow?: boolean }, McpStatusDto];
  'mcp.setApproval': [{ name: string; approval: McpApprovalDto }, McpStatusDto];
  /** Starts (or restarts) the server now; the status says how it went. */
  'mcp.connect': [{ name: string }, McpStatusDto];
  /** Adds the servers of a claude_desktop_config.json / mcp.json text. */
  'mcp.import': [{ text: string }, { added: string[]; notes: string[]; status: McpStatusDto }];
  /** T3: the approval requests still waiting for an answer, as the `approval` events that asked them. */
  'approvals.list': [{ sessionKey?: string }, AgentEvent[]];
  /** X3: stores an image or text file (base64 bytes) for a message; refused with one line for other types or sizes. */
  'attachments.add': [{ name: string; data: string }, AttachmentDto];
  /** X3: a stored attachment's bytes (base64), for showing it in the chat. */
  'attachments.get': [{ id: string }, { mimeType: string; data: string }];
  /** X3: an `@`-mentioned workspace path as an attachment — a file's text, or a folder's listing. */
  'attachments.mention': [{ path: string }, AttachmentDto];
  /** X3: workspace paths for an `@` in the composer (.gitignore-aware), best matches first. */
  'workspace.complete': [{ query: string; limit?: number }, PathCompletion[]];
  /** X4: the cost ledger added up (total, today, this month; by chat, day, model and key) and the budgets. */
  'usage.summary': [Record<string, never>, UsageReportDto];
  /** X4: budgets in settings.json (null removes one); returns the budgets in force. */
  'usage.setBudget': [{ [K in BudgetNameDto]?: number | null }, BudgetDto];
}

export type MethodName = keyof Methods;
