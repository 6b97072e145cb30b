/** D2 contract: the session list, transcripts as shown, search and export (`sessions.*`). */
import type { AgentEvent, RetryData } from './events.js';
import type { BillingDto, ThinkingLevel } from './runs.js';
import type { AttachmentDto } from './attachments.js';

export interface SessionSummary {
  sessionKey: string;
  sessionId: string;
  title: string;
  model?: string;
  updatedAt: number;
  /** E17: billed tokens of every run of the session (every model call, compaction included), cost where priced. */
  usage: BillingDto;
  /** E17: tokens the conversation takes now (the last run's last call), apart from the billed totals. */
  context?: number;
  /** Thinking level chosen for this session (unset: the default). */
  thinking?: ThinkingLevel;
  /** `/verbose` chosen for this session (unset: the default, `agent.verbose`). */
  verbose?: boolean;
  /** E9: the chat's custom instructions (added to the system prompt of its runs). */
  extraSystemPrompt?: string;
  /** E22: only the last N turns are sent (unset: agent.historyTurns, else all). */
  historyTurns?: number;
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
  /** Older messages left out by `limit` (0: the history is complete). */
  omitted: number;
  /** Where the part shown starts (when `omitted` > 0): pass it as `before` to load the earlier part. */
  earlier?: { sessionId: string; offset: number };
  active: ActiveRunSnapshot | null;
}

export interface SessionExport {
  filename: string;
  mime: string;
  content: string;
}

/** One displayable transcript entry. */
export type HistoryEntry =
  | { role: 'user'; text: string; timestamp: number; attachments?: AttachmentDto[] }
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
      /** The tokens of this model call (a reloaded reply shows its tokens and cost like a live one). */
      usage?: { input: number; output: number; cacheRead: number; cacheWrite: number };
      /** What this call was billed in USD (the model's price as runs bill it); absent when the model is unpriced. */
      cost?: number;
      /** The retry lines shown live before this call (a key switch, a wait, a fallback). */
      retries?: RetryData[];
    }
  | { role: 'toolResult'; toolCallId: string; toolName: string; content: string; isError: boolean; timestamp: number; durationMs?: number }
  /** E10: the context was compacted here; earlier entries are summarised for the model (a divider in the UI). */
  | { role: 'compaction'; summary: string; tokensBefore: number; tokensAfter: number; timestamp: number };
